"""Every optimizer tpuemb knows, and what TensorFlow 2.21 does with it: one row each.

Every algorithm of ``OptimizationParameters``' ``parameters`` oneof has a row (``Algorithm``):
its field and the state arrays TensorFlow's TPU embedding ops allocate for a table beside its
parameters (``GetOptimizationAlgorithmStateVariables``,
``tensorflow/core/tpu/tpu_embedding_optimization_parameters_utils.cc``). The five that
TensorFlow's mid-level API builds (``tf.tpu.experimental.embedding``: SGD, Adagrad,
AdagradMomentum, Adam, FTRL) have a richer row (``Optimizer``): the Python class, the spec's
field, the class's default learning rate, its own arguments with their defaults and the config
field each is written to (``_set_optimization_parameters``), and whether TPUEmbeddingV2 has a
SparseCore update for it (``tensorflow/python/tpu/tpu_embedding_v2_utils.py`` and
``tpu_embedding_v3.py``).

A mid-level class's slot variables (``_slot_names()``, the ``<table>/<slot>`` variables a
checkpoint holds and TPUEmbeddingV2 allocates beside a stacked table) and its algorithm's state
arrays have the same names in TensorFlow, so a row says them once, as ``slots``
(``tests/test_tf_memory.py`` and ``tests/test_tf_sparsecore_rules.py`` compare both with
TensorFlow).

Everything else derives from ``TABLE``: the memory model, the spec compiler, the SparseCore
layout and its group keys, ``tpuemb diff``'s slot variables, ``explain``'s names, ``spec_from_tf``
and the rules' defaults read it when they run, through the lookups below; ``load.aliases`` builds
its names from it when imported. Adding an optimizer is a row here and its rules (and, for an
algorithm the protos lack, its messages there).

The other libraries' columns are beside it: ``JAX_TABLE``, jax-tpu-embedding's OptimizerSpec
classes (proto type, hyperparameters in ``__hash__`` order with defaults, slot variables), and
``KERAS_TABLE``, Keras 3's classes as Keras-RS converts them (defaults, the JAX and TensorFlow
classes each conversion makes, the options they refuse). Every fact is written once, in its
library's column; a JAX front-end and the Keras-RS conversions read them when they run
(``tests/test_optimizers.py`` swaps a toy row into each column and watches the readers follow).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

# Every array TensorFlow allocates for a table is float32: the load/retrieve ops' state arrays,
# TPUEmbeddingV2's variables (``variable_dtype = dtypes.float32``), what its stacker sizes.
FLOAT_BYTES = 4

# CustomOptimizer's default learning rate: what a spec optimizer the table has no row for gets.
CUSTOM_LEARNING_RATE = 0.01


class Argument(NamedTuple):
    """One argument of a mid-level optimizer class that the spec holds as a field of its own."""

    name: str  # the class's argument and attribute, and the spec's field: ``beta_1``
    default: float | bool  # TensorFlow's default, as its signature writes it: ``2``, ``1e-07``
    field: str | None  # the OptimizationParameters field it is written to; None: not written
    inverted: bool = False  # the field holds the opposite (``lazy_adam``, ``use_non_lazy_adam``)

    @property
    def written(self) -> str:
        """The default as a message quotes it: ``0.1``, ``2``, ``1e-07``."""
        return repr(self.default)


@dataclass(frozen=True)
class Algorithm:
    """An algorithm of ``OptimizationParameters``' oneof."""

    field: str  # the oneof's field: ``stochastic_gradient_descent``
    # The state arrays after ``parameters``, as TensorFlow's ops name them; None for
    # user_defined_program, whose count comes from its program (``model.program_shape``).
    slots: tuple[str, ...] | None


@dataclass(frozen=True)
class Optimizer(Algorithm):
    """An algorithm that a class of TensorFlow's mid-level API writes."""

    slots: tuple[str, ...]  # also the class's ``_slot_names()``
    tf_class: str  # the class in tf.tpu.experimental.embedding, as users know it: ``SGD``
    spec: str  # the spec's oneof field, the lower-case name Keras also uses: ``sgd``
    learning_rate: float  # the class's default
    arguments: tuple[Argument, ...]  # in the order its constructor assigns them
    sparsecore: bool  # TPUEmbeddingV2 has a SparseCore update for it

    def argument(self, name: str) -> Argument:
        """The argument ``name`` (the spec's field); KeyError when the class has none."""
        for each in self.arguments:
            if each.name == name:
                return each
        raise KeyError(f"{self.tf_class} has no argument {name!r}")

    def written_to(self, field: str) -> Argument | None:
        """The argument written to the config's ``field`` of this algorithm, if one is."""
        return next((each for each in self.arguments if each.field == field), None)


# The mid-level API's classes first, in the spec's order, then the other algorithms in the
# proto's order.
TABLE: tuple[Algorithm, ...] = (
    Optimizer(
        field="stochastic_gradient_descent",
        slots=(),
        tf_class="SGD",
        spec="sgd",
        learning_rate=0.01,
        arguments=(),
        sparsecore=True,
    ),
    Optimizer(
        field="adagrad",
        slots=("accumulators",),
        tf_class="Adagrad",
        spec="adagrad",
        learning_rate=0.001,
        # It initialises the slot; the config has no field for it.
        arguments=(Argument("initial_accumulator_value", 0.1, None),),
        sparsecore=True,
    ),
    Optimizer(
        field="adagrad_momentum",
        slots=("accumulators", "momenta"),
        tf_class="AdagradMomentum",
        spec="adagrad_momentum",
        learning_rate=0.001,
        arguments=(
            Argument("momentum", 0.0, "momentum"),
            Argument("use_nesterov", False, "use_nesterov"),
            Argument("exponent", 2, "exponent"),
            Argument("beta2", 1, "beta2"),
            Argument("epsilon", 1e-10, "epsilon"),
        ),
        sparsecore=True,
    ),
    Optimizer(
        field="adam",
        slots=("momenta", "velocities"),
        tf_class="Adam",
        spec="adam",
        learning_rate=0.001,
        arguments=(
            Argument("beta_1", 0.9, "beta1"),
            Argument("beta_2", 0.999, "beta2"),
            Argument("epsilon", 1e-07, "epsilon"),
            Argument("lazy_adam", True, "use_non_lazy_adam", inverted=True),
            Argument("sum_inside_sqrt", True, "use_sum_inside_sqrt"),
        ),
        sparsecore=True,
    ),
    Optimizer(
        field="ftrl",
        slots=("accumulators", "linears"),
        tf_class="FTRL",
        spec="ftrl",
        learning_rate=0.001,
        arguments=(
            Argument("initial_accumulator_value", 0.1, None),
            Argument("learning_rate_power", -0.5, "lr_power"),
            Argument("l1_regularization_strength", 0.0, "l1"),
            Argument("l2_regularization_strength", 0.0, "l2"),
            Argument("beta", 0.0, "beta"),
            Argument("multiply_linear_by_learning_rate", False, "multiply_linear_by_lr"),
            Argument("allow_zero_accumulator", False, "allow_zero_accumulator"),
        ),
        sparsecore=True,
    ),
    Algorithm("bounded_adagrad", ("accumulators",)),
    Algorithm("frequency_aware_adagrad", ("accumulators", "counters")),
    Algorithm("momentum", ("momenta",)),
    Algorithm("lion", ("momenta",)),
    Algorithm("rms_prop", ("ms", "mom")),
    Algorithm("centered_rms_prop", ("ms", "mom", "mg")),
    Algorithm("mdl_adagrad_light", ("accumulators", "weights", "benefits")),
    Algorithm("adadelta", ("accumulators", "updates")),
    Algorithm("proximal_adagrad", ("accumulators",)),
    Algorithm("online_yogi", ("vs", "linears")),
    Algorithm("proximal_yogi", ("v", "m")),
    Algorithm("frequency_estimator", ("last_hit_step",)),
    Algorithm("user_defined_program", None),
    Algorithm("assign", ()),
)


class _Index(NamedTuple):
    table: tuple[Algorithm, ...]  # the table it was built from
    fields: dict[str, Algorithm]
    specs: dict[str, Optimizer]
    classes: dict[str, Optimizer]
    optimizers: tuple[Optimizer, ...]


_index: _Index | None = None


def _indexed() -> _Index:
    """The lookups' dictionaries, built again whenever ``TABLE`` is another tuple (a test that
    puts another row in changes everything that reads it)."""
    global _index
    if _index is None or _index.table is not TABLE:
        classes = tuple(row for row in TABLE if isinstance(row, Optimizer))
        _index = _Index(
            TABLE,
            {row.field: row for row in TABLE},
            {row.spec: row for row in classes},
            {row.tf_class: row for row in classes},
            classes,
        )
    return _index


def algorithm(field: str | None) -> Algorithm | None:
    """The row of an ``OptimizationParameters`` oneof field (None: no algorithm is set)."""
    return _indexed().fields.get(field) if field is not None else None


def optimizer(field: str | None) -> Optimizer | None:
    """The mid-level class behind a oneof field; None for one the mid-level API never builds
    (``momentum``, ``rms_prop``, ...: their checkpoint layout is not the mid-level API's)."""
    found = algorithm(field)
    return found if isinstance(found, Optimizer) else None


def of_spec(name: str | None) -> Optimizer | None:
    """The class behind a spec's optimizer oneof field (None, unset: SGD, TensorFlow's default);
    None for one the mid-level API never builds (``custom``)."""
    return _indexed().specs.get(name or "sgd")


def of_class(name: str) -> Optimizer | None:
    """The row of a ``tf.tpu.experimental.embedding`` class, by its name: ``FTRL``."""
    return _indexed().classes.get(name)


def optimizers() -> tuple[Optimizer, ...]:
    """The mid-level API's classes, in the table's order."""
    return _indexed().optimizers


def label(field: str | None) -> str:
    """How a message names the algorithm of a oneof field: its class, or its field."""
    if field is None:
        return "no optimizer"
    found = optimizer(field)
    return found.tf_class if found else f"`{field}`"


def default(field: str, written: str) -> Argument:
    """The argument of the class of oneof ``field`` that is written to the config's ``written``
    (``default("adam", "beta1")`` is ``beta_1``): what the config rules quote TensorFlow's default
    from. KeyError when there is none."""
    found = optimizer(field)
    argument = found.written_to(written) if found is not None else None
    if argument is None:
        raise KeyError(f"{field}.{written} is written by no argument of a mid-level class")
    return argument


# --- jax-tpu-embedding's column --------------------------------------------------------------
# jax-tpu-embedding's optimizer classes (``lib/nn/embedding_spec.py``, v0.1.0 and 0.2.0): one row
# each. Everything that knows a JAX optimizer reads it when it runs: auto-stacking's optimizer
# key (``frontends/jax/spec/optimizer_key``), 0.2.0's ``OptimizerSpecProto``
# (``frontends/jax/spec/optimizer_proto``), the memory model's slot variables
# (``frontends/jax/spec/memory``), and Keras-RS's JAX conversion (``frontends/keras/model/
# optimizers``, ``frontends/keras/spec/plan``).


class JaxParameter(NamedTuple):
    """A hyperparameter of a jax-tpu-embedding OptimizerSpec class."""

    name: str  # the constructor's argument and attribute: ``learning_rate_power``
    default: float  # the constructor's default (a boolean as 0.0 / 1.0)
    boolean: bool = False  # 0.2.0's proto writes it in ``bool_params``, else ``float_params``


@dataclass(frozen=True)
class JaxOptimizer:
    """An OptimizerSpec class of jax-tpu-embedding."""

    spec_class: str  # ``FTRLOptimizerSpec``
    # ``OptimizerSpecProto.OptimizerType``'s name 0.2.0 records it as; CUSTOM for a class its
    # ``optimizer_spec_to_proto`` does not map (LaProp), which it records without parameters.
    proto_type: str
    # After the learning rate, in the order ``__hash__`` takes them -- what auto-stacking tells
    # two tables' optimizers apart by -- which is also the order 0.2.0's proto lists them.
    parameters: tuple[JaxParameter, ...]
    slots: tuple[str, ...]  # the slot variables ``slot_variables_initializers`` creates


JAX_TABLE: tuple[JaxOptimizer, ...] = (
    JaxOptimizer("SGDOptimizerSpec", "SGD", (), ()),
    JaxOptimizer(
        "AdagradOptimizerSpec",
        "ADAGRAD",
        (JaxParameter("initial_accumulator_value", 0.1),),
        ("accumulator",),
    ),
    JaxOptimizer(
        "AdamOptimizerSpec",
        "ADAM",
        (JaxParameter("beta_1", 0.9), JaxParameter("beta_2", 0.999), JaxParameter("epsilon", 1e-8)),
        ("momentum", "velocity"),
    ),
    JaxOptimizer(
        "AdagradMomentumOptimizerSpec",
        "ADAGRAD_MOMENTUM",
        (
            JaxParameter("momentum", 0.9),
            JaxParameter("beta2", 1.0),
            JaxParameter("epsilon", 1e-10),
            JaxParameter("exponent", 2.0),
            JaxParameter("use_nesterov", 0.0, boolean=True),
            JaxParameter("initial_accumulator_value", 0.1),
            JaxParameter("initial_momentum_value", 0.0),
        ),
        ("accumulator", "momentum"),
    ),
    JaxOptimizer(
        "FTRLOptimizerSpec",
        "FTRL",
        (
            JaxParameter("learning_rate_power", -0.5),
            JaxParameter("l1_regularization_strength", 0.0),
            JaxParameter("l2_regularization_strength", 0.0),
            JaxParameter("beta", 0.0),
            JaxParameter("initial_accumulator_value", 0.1),
            JaxParameter("initial_linear_value", 0.0),
            JaxParameter("multiply_linear_by_learning_rate", 0.0, boolean=True),
        ),
        ("accumulator", "linear"),
    ),
    JaxOptimizer(
        "LaPropOptimizerSpec",
        "CUSTOM",
        (
            JaxParameter("b1", 0.9),
            JaxParameter("b2", 0.95),
            JaxParameter("eps", 1e-30),
            JaxParameter("initial_slot_value", 0.0),
        ),
        ("mu", "nu"),
    ),
    JaxOptimizer(
        "F2AOptimizerSpec",
        "F2A",
        (
            JaxParameter("rho", 0.5),
            JaxParameter("initial_accumulator_value", 0.1),
            JaxParameter("initial_local_step_value", 0.0),
            JaxParameter("l1_regularization_strength", 0.0),
            JaxParameter("l2_regularization_strength", 0.0),
            JaxParameter("max_lr_multiplier", 1e6),
        ),
        ("accumulator", "local_step"),
    ),
)
# The proto type of a class 0.2.0 does not map, and of a CustomOptimizerSpec.
JAX_CUSTOM = "CUSTOM"


def jax_class(name: str | None) -> JaxOptimizer | None:
    """The row of a jax-tpu-embedding OptimizerSpec class, by its name (None: not the library's)."""
    return next((row for row in JAX_TABLE if row.spec_class == name), None)


def jax_proto_slots(proto_type: str) -> tuple[str, ...] | None:
    """The slot variables of the classes 0.2.0's proto records as ``proto_type``; None for CUSTOM
    (whose slots the proto does not say) and for a type no class has."""
    if proto_type == JAX_CUSTOM:
        return None
    return next((row.slots for row in JAX_TABLE if row.proto_type == proto_type), None)


class _JaxSlots(Mapping[str, "tuple[str, ...] | None"]):
    """``OptimizerSpecProto.OptimizerType``'s names -> the slot variables the library's class
    creates (None: CUSTOM), read from ``JAX_TABLE`` at each look-up (a test's row reaches it)."""

    def _types(self) -> list[str]:
        types = [row.proto_type for row in JAX_TABLE if row.proto_type != JAX_CUSTOM]
        return [*dict.fromkeys(types), JAX_CUSTOM]

    def __getitem__(self, key: str) -> tuple[str, ...] | None:
        if key not in self._types():
            raise KeyError(key)
        return jax_proto_slots(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._types())

    def __len__(self) -> int:
        return len(self._types())


JAX_SLOTS: Mapping[str, tuple[str, ...] | None] = _JaxSlots()


# --- Keras-RS's column -----------------------------------------------------------------------
# Keras 3's optimizer classes as Keras-RS's SparseCore conversions read them (keras-rs 0.4.0,
# ``config_conversion.py`` of each backend; frontends/keras/model/optimizers says what they do):
# each class's own options with their defaults (Keras 3.15.1's ``get_config()`` of a default
# instance; a learning rate is what Keras keeps: float32), and for a class the conversions
# support, what each makes of it. Read when they run: ``frontends/keras/model/optimizers``,
# ``frontends/keras/spec/conversion``, the Keras rules.

_F32_0_01 = 0.009999999776482582
_F32_0_001 = 0.0010000000474974513


@dataclass(frozen=True)
class KerasOptimizer:
    """A Keras 3 optimizer class the conversions know."""

    keras_class: str  # ``Ftrl``
    defaults: dict[str, float | None]  # its own options (after the general ones) and defaults
    # The supported class the conversions take it for (``isinstance``: AdamW is an Adam); None:
    # refused. Only a supported class's own row says the rest.
    converted_as: str | None = None
    jax: str | None = None  # the jax-tpu-embedding OptimizerSpec class JAX's conversion makes
    tf: str | None = None  # the tf.tpu.experimental.embedding class TensorFlow's makes
    # Options both conversions refuse unless at this value (the class's default).
    required: dict[str, float] | None = None


KERAS_TABLE: tuple[KerasOptimizer, ...] = (
    KerasOptimizer(
        "SGD",
        {"learning_rate": _F32_0_01, "momentum": 0.0, "nesterov": 0.0},
        "SGD",
        "SGDOptimizerSpec",
        "SGD",
        {"nesterov": 0.0, "momentum": 0.0},
    ),
    KerasOptimizer(
        "Adagrad",
        {"learning_rate": _F32_0_001, "initial_accumulator_value": 0.1, "epsilon": 1e-07},
        "Adagrad",
        "AdagradOptimizerSpec",
        "Adagrad",
        {"epsilon": 1e-07},
    ),
    KerasOptimizer(
        "Adam",
        {
            "learning_rate": _F32_0_001,
            "beta_1": 0.9,
            "beta_2": 0.999,
            "epsilon": 1e-07,
            "amsgrad": 0.0,
        },
        "Adam",
        "AdamOptimizerSpec",
        "Adam",
        {"amsgrad": 0.0},
    ),
    KerasOptimizer(
        "AdamW",
        {
            "learning_rate": _F32_0_001,
            "weight_decay": 0.004,
            "beta_1": 0.9,
            "beta_2": 0.999,
            "epsilon": 1e-07,
            "amsgrad": 0.0,
        },
        "Adam",
    ),
    KerasOptimizer(
        "Ftrl",
        {
            "learning_rate": _F32_0_001,
            "learning_rate_power": -0.5,
            "initial_accumulator_value": 0.1,
            "l1_regularization_strength": 0.0,
            "l2_regularization_strength": 0.0,
            "l2_shrinkage_regularization_strength": 0.0,
            "beta": 0.0,
        },
        "Ftrl",
        "FTRLOptimizerSpec",
        "FTRL",
        {"l2_shrinkage_regularization_strength": 0.0},
    ),
)


def keras_class(name: str | None) -> KerasOptimizer | None:
    """The row of a Keras optimizer class, by its name (None: no conversion knows it)."""
    return next((row for row in KERAS_TABLE if row.keras_class == name), None)


def keras_converted(name: str | None) -> KerasOptimizer | None:
    """The row of the supported class the conversions take Keras class ``name`` for (AdamW:
    Adam's); None when they refuse it."""
    row = keras_class(name)
    return keras_class(row.converted_as) if row is not None and row.converted_as else None
