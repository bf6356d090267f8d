"""Stand-ins for Keras-RS's TableConfig, FeatureConfig and DistributedEmbedding, and Keras's
optimizers: the attributes `tpuemb_cli.keras` reads, for tests that run without Keras. The
optimizers' ``get_config()`` is Keras 3.15.1's (a learning rate through float32), and
``keras_jax`` builds the jax-tpu-embedding stand-ins Keras-RS's JAX conversion would make."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

_GENERAL = {
    "weight_decay": None,
    "clipnorm": None,
    "global_clipnorm": None,
    "clipvalue": None,
    "use_ema": False,
    "ema_momentum": 0.99,
    "ema_overwrite_frequency": None,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}


class _Optimizer:
    DEFAULTS: ClassVar[dict[str, Any]] = {}
    LEARNING_RATE = 0.001

    def __init__(self, learning_rate: Any = None, **options: Any) -> None:
        self.options = {**_GENERAL, **self.DEFAULTS, **options}
        self.learning_rate = self.LEARNING_RATE if learning_rate is None else learning_rate
        # Where a Keras optimizer keeps a schedule object (its `learning_rate` evaluates it).
        self._learning_rate = self.learning_rate

    def get_config(self) -> dict[str, Any]:
        rate = self.learning_rate
        if not callable(rate):
            rate = float(np.float32(rate))
        else:
            rate = {"class_name": type(rate).__name__, "config": {}}
        return {"name": type(self).__name__.lower(), "learning_rate": rate, **self.options}


class SGD(_Optimizer):
    DEFAULTS: ClassVar[dict[str, Any]] = {"momentum": 0.0, "nesterov": False}
    LEARNING_RATE = 0.01


class Adagrad(_Optimizer):
    DEFAULTS: ClassVar[dict[str, Any]] = {"initial_accumulator_value": 0.1, "epsilon": 1e-07}


class Adam(_Optimizer):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "beta_1": 0.9,
        "beta_2": 0.999,
        "epsilon": 1e-07,
        "amsgrad": False,
    }


class AdamW(Adam):
    DEFAULTS: ClassVar[dict[str, Any]] = {**Adam.DEFAULTS, "weight_decay": 0.004}


class Ftrl(_Optimizer):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "learning_rate_power": -0.5,
        "initial_accumulator_value": 0.1,
        "l1_regularization_strength": 0.0,
        "l2_regularization_strength": 0.0,
        "l2_shrinkage_regularization_strength": 0.0,
        "beta": 0.0,
    }


class RMSprop(_Optimizer):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "rho": 0.9,
        "momentum": 0.0,
        "epsilon": 1e-07,
        "centered": False,
    }


class VarianceScaling:
    pass


@dataclass(eq=False)
class TableConfig:
    name: str
    vocabulary_size: int = 1000
    embedding_dim: int = 16
    initializer: Any = field(default_factory=VarianceScaling)
    optimizer: Any = "adam"
    combiner: str = "mean"
    placement: str = "auto"
    max_ids_per_partition: int = 256
    max_unique_ids_per_partition: int = 256


@dataclass(eq=False)
class FeatureConfig:
    name: str
    table: TableConfig
    input_shape: tuple[Any, ...] = (128, 1)
    output_shape: tuple[Any, ...] = (128, 16)


_UNSET: Any = object()


class DistributedEmbedding:
    """A layer; ``table_stacking`` given: one set up for SparseCores, which keeps it (as
    ``_table_stacking``) and saves it; else one built on CPU, which has none."""

    def __init__(
        self,
        feature_configs: Any,
        name: str = "distributed_embedding",
        table_stacking: Any = _UNSET,
    ) -> None:
        self._feature_configs = feature_configs
        self.name = name
        if table_stacking is not _UNSET:
            self._table_stacking = table_stacking


class Model:
    def __init__(self, name: str, layers: list[Any]) -> None:
        self.name = name
        self.layers = layers


# jax-tpu-embedding's optimizer specs, as the JAX conversion builds them.
class SGDOptimizerSpec:
    def __init__(self, learning_rate: Any) -> None:
        self.learning_rate = learning_rate


class AdagradOptimizerSpec:
    def __init__(self, learning_rate: Any, initial_accumulator_value: float) -> None:
        self.learning_rate = learning_rate
        self.initial_accumulator_value = initial_accumulator_value


class AdamOptimizerSpec:
    def __init__(self, learning_rate: Any, beta_1: float, beta_2: float, epsilon: float) -> None:
        self.learning_rate = learning_rate
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon


class FTRLOptimizerSpec:
    def __init__(self, learning_rate: Any, **settings: float) -> None:
        self.learning_rate = learning_rate
        for name, value in settings.items():
            setattr(self, name, value)
        self.initial_linear_value = 0.0
        self.multiply_linear_by_learning_rate = False


@dataclass(eq=False)
class JaxTableSpec:
    name: str
    vocabulary_size: int
    embedding_dim: int
    optimizer: Any
    combiner: str
    max_ids_per_partition: int
    max_unique_ids_per_partition: int


@dataclass(eq=False)
class JaxFeatureSpec:
    name: str
    table_spec: JaxTableSpec
    input_shape: Any
    output_shape: Any


def _jax_optimizer(optimizer: Any) -> Any:
    """keras_to_jte_optimizer, for the options it accepts (a name: keras.optimizers.get's
    default instance)."""
    if isinstance(optimizer, str):
        optimizer = {"sgd": SGD, "adagrad": Adagrad, "adam": Adam, "ftrl": Ftrl}[optimizer]()
    rate = float(np.float32(optimizer.learning_rate))
    o = optimizer.options
    if isinstance(optimizer, SGD):
        return SGDOptimizerSpec(rate)
    if isinstance(optimizer, Adagrad):
        return AdagradOptimizerSpec(rate, o["initial_accumulator_value"])
    if isinstance(optimizer, Adam):
        return AdamOptimizerSpec(rate, o["beta_1"], o["beta_2"], o["epsilon"])
    assert isinstance(optimizer, Ftrl)
    return FTRLOptimizerSpec(
        rate,
        learning_rate_power=o["learning_rate_power"],
        l1_regularization_strength=o["l1_regularization_strength"],
        l2_regularization_strength=o["l2_regularization_strength"],
        beta=o["beta"],
        initial_accumulator_value=o["initial_accumulator_value"],
    )


def keras_jax(features: dict[str, FeatureConfig]) -> dict[str, JaxFeatureSpec]:
    """keras_to_jte_feature_configs of the layer's SparseCore features (path -> config): a dict
    in sorted key order, one TableSpec per table name."""
    by_name: dict[str, JaxTableSpec] = {}
    out = {}
    for path in sorted(features):
        feature = features[path]
        table = feature.table
        spec = by_name.get(table.name)
        if spec is None:
            spec = by_name[table.name] = JaxTableSpec(
                table.name,
                table.vocabulary_size,
                table.embedding_dim,
                _jax_optimizer(table.optimizer),
                table.combiner,
                table.max_ids_per_partition,
                table.max_unique_ids_per_partition,
            )
        out[path] = JaxFeatureSpec(feature.name, spec, feature.input_shape, feature.output_shape)
    return out


# tf.tpu.experimental.embedding's classes, as the TensorFlow conversion builds them.
class _TfOptimizer:
    ARGUMENTS: ClassVar[dict[str, Any]] = {}

    def __init__(
        self,
        learning_rate: Any,
        weight_decay_factor: float | None = None,
        clipvalue: float | None = None,
        use_gradient_accumulation: bool = True,
        **arguments: Any,
    ) -> None:
        self.learning_rate = learning_rate
        self.weight_decay_factor = weight_decay_factor
        self.use_gradient_accumulation = use_gradient_accumulation
        self.clip_weight_min = self.clip_weight_max = None
        self.multiply_weight_decay_factor_by_learning_rate = None
        self.clip_gradient_min = -clipvalue if clipvalue is not None else None
        self.clip_gradient_max = clipvalue
        for name, default in self.ARGUMENTS.items():
            setattr(self, name, arguments.get(name, default))


TF_CLASSES = {
    "SGD": type("SGD", (_TfOptimizer,), {"ARGUMENTS": {}}),
    "Adagrad": type("Adagrad", (_TfOptimizer,), {"ARGUMENTS": {"initial_accumulator_value": 0.1}}),
    "Adam": type(
        "Adam",
        (_TfOptimizer,),
        {
            "ARGUMENTS": {
                "beta_1": 0.9,
                "beta_2": 0.999,
                "epsilon": 1e-07,
                "lazy_adam": True,
                "sum_inside_sqrt": True,
            }
        },
    ),
}
_TF_SUPPORTED = {"Adagrad": ["initial_accumulator_value"], "Adam": ["beta_1", "beta_2", "epsilon"]}


@dataclass(eq=False)
class TfTableConfig:
    vocabulary_size: int
    dim: int
    optimizer: Any
    combiner: str
    name: str


@dataclass(eq=False)
class TfFeatureConfig:
    table: TfTableConfig
    output_shape: list[Any]
    name: str
    max_sequence_length: int = 0


class SparseCoreEmbeddingConfig:
    def __init__(self, disable_table_stacking: bool, initialize_tables_on_host: bool) -> None:
        self.disable_table_stacking = disable_table_stacking
        self.initialize_tables_on_host = initialize_tables_on_host
        self.max_ids_per_chip_per_sample = 64
        self.allow_id_dropping = False
        self.enable_fast_table_initialization = False
        self.max_ids_per_table = None
        self.max_unique_ids_per_table = None


def _tf_optimizer(optimizer: Any) -> Any:
    """keras_to_tf_tpu_optimizer / to_tf_tpu_optimizer, for the options they accept."""
    if isinstance(optimizer, str):
        return TF_CLASSES[{"sgd": "SGD", "adagrad": "Adagrad", "adam": "Adam"}[optimizer]](
            learning_rate=0.01 if optimizer == "sgd" else 0.001
        )
    config = optimizer.get_config()
    kind = "Adam" if isinstance(optimizer, Adam) else type(optimizer).__name__
    kwargs: dict[str, Any] = {"learning_rate": config["learning_rate"]}
    if optimizer.options["weight_decay"] is not None:
        kwargs["weight_decay_factor"] = optimizer.options["weight_decay"]
    if optimizer.options["clipvalue"] is not None:
        kwargs["clipvalue"] = optimizer.options["clipvalue"]
    for name in _TF_SUPPORTED.get(kind, []):
        kwargs[name] = optimizer.options[name]
    return TF_CLASSES[kind](**kwargs)


def keras_tf(features: dict[str, FeatureConfig], replicas: int) -> dict[str, TfFeatureConfig]:
    """keras_to_tf_tpu_configuration's feature configs (path -> config, mapped in sorted key
    order; one TableConfig per table object; the batch per replica, the embedding dim cut)."""
    tables: dict[int, TfTableConfig] = {}
    out = {}
    for path in sorted(features):
        feature = features[path]
        table = tables.get(id(feature.table))
        if table is None:
            t = feature.table
            table = tables[id(t)] = TfTableConfig(
                t.vocabulary_size, t.embedding_dim, _tf_optimizer(t.optimizer), t.combiner, t.name
            )
        shape = list(feature.output_shape[:-1])
        shape[0] //= replicas
        out[path] = TfFeatureConfig(table, shape, feature.name)
    return out
