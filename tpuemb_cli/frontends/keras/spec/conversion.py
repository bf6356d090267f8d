"""A Keras-RS ``DistributedEmbedding`` layer (a ``KerasModel``'s layer) as the spec of what its
backend puts on the SparseCores, with which spec table and feature came from which of the
layer's, so that findings on the spec are placed at the layer's fields.

- JAX (keras-rs 0.4.0, ``keras_rs/src/layers/embedding/jax/``): the features placed on
  SparseCores (``"sparsecore"``, and ``"auto"`` on a TPU that has them), as a dict keyed by their
  path, go through ``keras_to_jte_feature_configs``, which maps a dict in sorted key order and
  makes one TableSpec per table *name* (the first one's); the spec is what
  ``tpuemb_cli.jax.spec_from_jax`` writes for those FeatureSpecs on ``global_device_count``
  devices of ``num_sc_per_device`` SparseCores, stacked as ``sparsecore_build`` asks the
  library to: ``"auto"`` (also a configuration without ``table_stacking``, which reloads as
  ``"auto"``) is ``auto_stack_tables`` (`jax.auto_stack`); each explicit list is one
  ``stack_tables`` call, its tables in the list's order under the library's name for them;
  ``None`` stacks nothing. Each stack of several tables then gets the largest of its tables'
  limits (``update_preprocessing_parameters``).
- TensorFlow (``keras_rs/src/layers/embedding/tensorflow/config_conversion.py``,
  ``keras_to_tf_tpu_configuration``): the same features become ``tf.tpu.experimental.embedding``
  FeatureConfigs (one TableConfig per table object, the batch divided by the replicas, the
  embedding dimension cut from ``output_shape``) and a ``SparseCoreEmbeddingConfig``; the spec
  is what ``tpuemb_cli.tf.spec_from_tf`` writes for them, the replicas one host's devices. What
  the layer builds from them depends on the TPU's embedding feature (``_sparsecore_init``):
  ``TPUEmbeddingV2`` on V2 (v5p, v6e; also assumed when no chip is named), whose spec has a
  ``sparse_core`` section; ``TPUEmbedding`` (v1, the TPU embedding engine) on V1 (v2, v3, v4),
  which drops the SparseCoreEmbeddingConfig, so the spec has none and the TPUEmbedding rules
  judge it. On v5e and TPU7x the feature is not known (``Topology.embedding_feature``).

Tables on ``"default_device"`` stay on the TensorCores: no conversion reads them.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from tpuemb_cli.frontends.jax.spec.stacking import Stacking, stack_name, stacking
from tpuemb_cli.frontends.keras.model import optimizers as keras_optimizers
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, LearningRate

PLACEMENTS = ("auto", "default_device", "sparsecore")  # SUPPORTED_PLACEMENTS
# The chips whose devices keras-rs 0.4.0's JAX layer takes for SparseCore ones (its
# `_has_sparsecore`: device_kind "TPU v5" or "TPU v6 lite"); elsewhere "auto" is "default_device".
JAX_SPARSECORE_CHIPS = frozenset({"v5p", "v6e"})
# The TPU embedding feature the TensorFlow layer finds on each chip
# (``strategy.extended.tpu_hardware_feature.embedding_feature``), which decides what keras-rs
# 0.4.0's ``_sparsecore_init`` builds: V1 -> ``TPUEmbedding`` (the SparseCoreEmbeddingConfig
# dropped), V2 -> ``TPUEmbeddingV2``. The runtime reports it; no public source maps chips to it:
# V2 on the chips with SparseCores TPUEmbeddingV2 is documented for (its CustomOptimizer "for
# running embedding lookups on TPU v5p"), V1 on the chips before them. v5e and TPU7x are left
# out: no source we can cite says which they report (the TPU7x page says TensorFlow does not
# run on it).
TF_EMBEDDING_FEATURES = {
    "v2": "V1",
    "v3": "V1",
    "v4": "V1",
    "v5p": "V2",
    "v6e": "V2",
}
# The library each feature makes the TensorFlow layer build.
TF_LIBRARIES = {"V1": "TPUEmbedding", "V2": "TPUEmbeddingV2"}


class Topology(Record):
    """Where the layer runs: its backend, devices in all and SparseCores per device (0: not
    known), and the chip ("" when not known)."""

    backend: str = "jax"
    global_device_count: int = 0
    num_sc_per_device: int = 0
    accelerator: str = ""

    def auto_on_sparsecore(self) -> bool:
        """Whether ``"auto"`` places a table on the SparseCores: on a TPU that has them, which
        the layer decides at run time; assumed, unless the chip is known to be one the JAX
        layer does not take for one."""
        if self.backend == "jax" and self.accelerator:
            return self.accelerator in JAX_SPARSECORE_CHIPS
        return True

    def refuses(self, placement: str) -> str:
        """Why the layer raises, when it is constructed, for a table placed so ("" when it does
        not; TE764): ``unknown``, a placement it does not know, or ``no-sparsecore``, on
        "sparsecore" where the JAX layer finds none."""
        if placement not in PLACEMENTS:
            return "unknown"
        if placement == "sparsecore" and not self.auto_on_sparsecore():
            return "no-sparsecore"
        return ""

    def embedding_feature(self) -> str:
        """The TensorFlow layer's TPU embedding feature: "V1", "V2", or "" when the chip's is not
        known (v5e, TPU7x). No chip named: "V2", assumed (the SparseCore chips')."""
        if not self.accelerator:
            return "V2"
        return TF_EMBEDDING_FEATURES.get(self.accelerator, "")

    def library(self) -> str:
        """What the backend builds from the tables it does not keep on the default device."""
        if self.backend == "jax":
            return "jax-tpu-embedding"
        return TF_LIBRARIES.get(self.embedding_feature(), "TPUEmbedding or TPUEmbeddingV2")

    def engine(self) -> str:
        """Where the tables the layer does not keep on the default device go, in words."""
        if self.backend == "tensorflow" and self.accelerator:
            feature = self.embedding_feature()
            if feature == "V1":
                return "the TPU embedding engine"
            if not feature:
                return "the TPU's embedding"
        return "the SparseCores"

    def on_embedding_engine(self) -> bool:
        """Whether the TensorFlow layer builds ``TPUEmbedding`` (v1): the TPU embedding engine
        of the chips before SparseCores, not TPUEmbeddingV2's SparseCores."""
        return self.backend == "tensorflow" and self.embedding_feature() == "V1"

    def sparsecore_placement(self, placement: str) -> bool:
        return placement == "sparsecore" or (placement == "auto" and self.auto_on_sparsecore())


class Converted(Record):
    """The spec of one layer, and for each spec table and feature the index of the layer's
    table and feature it came from; ``stacking``: the JAX spec's stacking (None for
    TensorFlow's), which the conversion works out for the stacks' limits."""

    spec: EmbeddingSpec
    tables: list[int]
    features: list[int]
    stacking: Stacking | None = None


def used_tables(layer: Any) -> list[int]:
    """The tables some feature looks up, in table order (the layer builds no other)."""
    used = {f.table for f in layer.features if 0 <= f.table < len(layer.tables)}
    return sorted(used)


def shadowed_features(layer: Any, topology: Topology) -> dict[int, int]:
    """The features the layer drops because a later one of the same placement has the same
    path, each with the index of the feature that replaces it: keras-rs 0.4.0 keys each
    placement's features by their path in ``feature_configs`` joined by ``.``
    (``_init_feature_configs_structures``), in ``keras.tree``'s order (the order the features
    are read in), so ``{"a.b": f1, "a": {"b": f2}}`` keeps one entry, the later feature (f1),
    whose table and ids serve both outputs."""
    last: dict[tuple[bool, str], int] = {}
    clashing: dict[tuple[bool, str], list[int]] = {}
    for index, feature in enumerate(layer.features):
        if not 0 <= feature.table < len(layer.tables):
            continue
        key = (topology.sparsecore_placement(layer.tables[feature.table].placement), feature.key)
        last[key] = index
        clashing.setdefault(key, []).append(index)
    return {index: last[key] for key, indexes in clashing.items() for index in indexes[:-1]}


def on_sparsecore(layer: Any, topology: Topology) -> list[int]:
    """The indexes of the layer's features whose tables go to the SparseCores, in the order the
    conversions read them: by their path in ``feature_configs``, sorted as text (the layer keeps
    them in a dict keyed so; of two features of one path, the dict holds the later)."""
    shadowed = shadowed_features(layer, topology)
    chosen = [
        index
        for index, feature in enumerate(layer.features)
        if 0 <= feature.table < len(layer.tables)
        and topology.sparsecore_placement(layer.tables[feature.table].placement)
        and index not in shadowed
    ]
    return sorted(chosen, key=lambda index: layer.features[index].key)


def unsaved_tables(layer: Any, topology: Topology) -> list[int]:
    """The indexes of the layer's tables that its saved weights never hold (compat/weights):
    with the TensorFlow backend, those it builds into ``TPUEmbeddingV2`` / ``TPUEmbedding`` on a
    chip whose embedding feature is known; none with the JAX backend, whose layer saves its
    stacks."""
    if topology.backend == "jax" or not topology.embedding_feature():
        return []
    return sorted({layer.features[f].table for f in on_sparsecore(layer, topology)})


def replaced_tables(layer: Any, topology: Topology) -> dict[int, int]:
    """The SparseCore tables the JAX conversion replaces by another of the same name, each with
    the index of the one it keeps: ``keras_to_jte_feature_configs`` makes one TableSpec per
    table *name*, for the first feature (by path) that looks one up, and hands every later
    feature of that name the same spec. Empty for TensorFlow, which converts tables by
    identity (and refuses two of one name: TE702)."""
    if topology.backend != "jax":
        return {}
    kept: dict[str, int] = {}
    replaced: dict[int, int] = {}
    for index in on_sparsecore(layer, topology):
        table = layer.features[index].table
        first = kept.setdefault(layer.tables[table].name, table)
        if first != table:
            replaced[table] = first
    return replaced


def convert(layer: Any, topology: Topology) -> Converted:
    """The spec the backend's conversion gives for ``layer`` on ``topology``."""
    if topology.backend == "tensorflow":
        return _tensorflow(layer, topology)
    return _jax(layer, topology)


def _dims(shape: Any) -> list[int]:
    """A shape with every dimension known (spec_from_jax keeps no partly known shape)."""
    dims = [int(d) for d in shape]
    return [] if any(d < 0 for d in dims) else dims


def _learning_rate(
    optimizer: Any,
    values: dict[str, float | None],
    target: LearningRate,
    schedules: dict[int, str],
    table: int,
    spec: EmbeddingSpec,
    callable_name: str = "",
) -> None:
    """A number, or a schedule: one per table optimizer (a schedule object is a callable the
    spec tells apart by identity; after a saved model is loaded no two optimizers share one),
    named as the spec names the callable the conversion passes on: the schedule's class
    (JAX's), or ``callable_name`` (TensorFlow's is a lambda around it)."""
    if optimizer.learning_rate_schedule:
        name = schedules.get(table)
        if name is None:
            base = callable_name or optimizer.learning_rate_schedule
            suffix, name = 2, base
            taken = {schedule.name for schedule in spec.schedules}
            while name in taken:
                name, suffix = f"{base}_{suffix}", suffix + 1
            spec.schedules.add(name=name, description=f"a Keras {optimizer.learning_rate_schedule}")
            schedules[table] = name
        target.schedule = name
        return
    rate = values.get("learning_rate")
    if rate is not None:
        target.constant = rate


def _jax(layer: Any, topology: Topology) -> Converted:
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec

    spec = EmbeddingSpec()
    spec.jax.global_device_count = topology.global_device_count
    spec.jax.num_sc_per_device = topology.num_sc_per_device
    features = on_sparsecore(layer, topology)
    # One TableSpec per table name: the first feature's table of that name (table_spec_map).
    by_name: dict[str, int] = {}
    for index in features:
        table = layer.tables[layer.features[index].table]
        by_name.setdefault(table.name, layer.features[index].table)
    tables = list(dict.fromkeys(by_name.values()))
    asked = _stacks(layer)
    schedules: dict[int, str] = {}
    for keras_index in tables:
        table = layer.tables[keras_index]
        target = spec.tables.add(
            name=table.name, vocabulary_size=table.vocabulary_size, dim=table.embedding_dim
        )
        target.combiner = table.combiner
        optimizer = table.optimizer
        values = keras_optimizers.settings(
            keras_optimizers.class_of(optimizer.class_name, optimizer.by_name),
            dict(optimizer.config),
        )
        kind, settings = keras_optimizers.jax_spec(optimizer.class_name, optimizer.by_name, values)
        target.jax.optimizer.type = kind
        _learning_rate(
            optimizer, values, target.jax.optimizer.learning_rate, schedules, keras_index, spec
        )
        for name, value in settings.items():
            target.jax.optimizer.settings[name] = value
        target.jax.max_ids_per_partition = table.max_ids_per_partition
        target.jax.max_unique_ids_per_partition = table.max_unique_ids_per_partition
        if table.name in asked:
            target.jax.stack, target.jax.stack_position = asked[table.name]
    for index in features:
        feature = layer.features[index]
        spec.features.add(
            name=feature.name,
            table=layer.tables[feature.table].name,
            input_shape=_dims(feature.input_shape),
            output_shape=_dims(feature.output_shape),
        )
    spec.jax.auto_stack = _auto_stacks(layer)
    # The limits do not change how the tables are stacked: the rules reuse it.
    stacked = stacking(spec)
    _stack_limits(spec, stacked)
    return Converted(spec, tables, features, stacked)


def _auto_stacks(layer: Any) -> bool:
    """Whether ``sparsecore_build`` calls ``auto_stack_tables``: for ``"auto"``, which is also
    what a layer whose configuration has no ``table_stacking`` reloads with (a layer built on
    CPU never writes it)."""
    stacking = layer.table_stacking
    kind = stacking.WhichOneof("kind")
    return kind is None or (kind == "mode" and stacking.mode == "auto")


def _stacks(layer: Any) -> dict[str, tuple[str, int]]:
    """The stack each table is asked into by the layer's explicit ``table_stacking`` lists, and
    its place there: ``sparsecore_build`` calls ``stack_tables`` once a list, in order, without
    a stack name, so the library names it (``_get_stack_name``) and stacks its tables in the
    list's order. A table named twice stays where it was first (stack_tables refuses the
    second: TE766)."""
    asked: dict[str, tuple[str, int]] = {}
    if layer.table_stacking.WhichOneof("kind") != "stacks":
        return asked
    for stack in layer.table_stacking.stacks.stacks:
        name = stack_name(list(stack.tables))
        for position, table in enumerate(stack.tables):
            asked.setdefault(table, (name, position))
    return asked


def _stack_limits(spec: EmbeddingSpec, stacked: Stacking) -> None:
    """The limits ``sparsecore_build`` gives each stack of several tables once stacked: the
    largest of its tables' (``update_preprocessing_parameters`` with their ``np.max``), not the
    library's default of 256 (a stack of one keeps its table's anyway)."""
    for name, members in stacked.groups.items():
        if len(members) < 2:
            continue
        jax = [spec.tables[index].jax for index in members]
        spec.jax.stack_max_ids_per_partition[name] = max(t.max_ids_per_partition for t in jax)
        spec.jax.stack_max_unique_ids_per_partition[name] = max(
            t.max_unique_ids_per_partition for t in jax
        )


def _tensorflow(layer: Any, topology: Topology) -> Converted:
    from tpuemb_cli.model import optimizers
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec

    spec = EmbeddingSpec()
    features = on_sparsecore(layer, topology)
    # One TableConfig per table object (by its index in the saved layer).
    tables = list(dict.fromkeys(layer.features[index].table for index in features))
    schedules: dict[int, str] = {}
    for keras_index in tables:
        table = layer.tables[keras_index]
        target = spec.tables.add()
        if table.name:
            target.name = table.name
        target.vocabulary_size = table.vocabulary_size
        target.dim = table.embedding_dim
        if table.combiner != "mean":
            target.combiner = table.combiner
        optimizer = table.optimizer
        actual = keras_optimizers.class_of(optimizer.class_name, optimizer.by_name)
        # The TensorFlow class the conversion makes (the optimizer table's Keras-RS column).
        as_class = optimizers.keras_converted(actual)
        algorithm = optimizers.of_class(as_class.tf) if as_class and as_class.tf else None
        if algorithm is None:
            target.optimizer.custom.type = actual  # refused: the Keras rules say so
            continue
        settings = getattr(target.optimizer, algorithm.spec)
        settings.SetInParent()
        if optimizer.by_name:  # TensorFlow's class, with TensorFlow's defaults
            for argument in algorithm.arguments:
                setattr(settings, argument.name, argument.default)
            target.optimizer.learning_rate.constant = algorithm.learning_rate
            target.optimizer.use_gradient_accumulation = True
            continue
        values = keras_optimizers.settings(actual, dict(optimizer.config))
        for argument in algorithm.arguments:
            value = values.get(argument.name)
            setattr(settings, argument.name, argument.default if value is None else value)
        _learning_rate(
            optimizer,
            values,
            target.optimizer.learning_rate,
            schedules,
            keras_index,
            spec,
            callable_name="lambda",
        )
        # TensorFlow's optimizers accumulate gradients unless told otherwise; Keras-RS says so
        # only when gradient_accumulation_steps is set.
        target.optimizer.use_gradient_accumulation = True
        if values.get("weight_decay") is not None:
            target.optimizer.weight_decay_factor = values["weight_decay"]  # type: ignore[assignment]
        clip = values.get("clipvalue")
        if clip is not None:
            target.optimizer.clipvalue.range.min = -clip
            target.optimizer.clipvalue.range.max = clip
    named = Counter(layer.tables[index].name for index in tables if layer.tables[index].name)
    for index in features:
        feature = layer.features[index]
        position = tables.index(feature.table)
        target_feature = spec.features.add()
        if feature.name:
            target_feature.name = feature.name
        name = layer.tables[feature.table].name
        target_feature.table = name if name and named[name] == 1 else f"#{position}"
        output = list(feature.output_shape[:-1])
        # No device count (a chip named alone): one replica, as the spec's topology says below
        # (an output shape left out made TPUEmbedding's rules call it unknowable, TE723).
        replicas = max(topology.global_device_count, 1)
        if output and output[0] >= 0 and output[0] % replicas == 0:
            output[0] //= replicas
            if all(d >= 0 for d in output):
                target_feature.output_shape.extend(output)
        target_feature.key = feature.key
    spec.topology.num_hosts = 1
    spec.topology.cores_per_host = max(topology.global_device_count, 1)
    spec.topology.pipeline_execution_with_tensor_core = False
    if topology.accelerator:
        spec.topology.accelerator = topology.accelerator
    elif topology.num_sc_per_device:
        spec.topology.sparse_cores_per_chip = topology.num_sc_per_device
    if topology.on_embedding_engine():
        # TPUEmbedding (v1): `_sparsecore_init` drops the SparseCoreEmbeddingConfig it made.
        return Converted(spec, tables, features)
    stacking = layer.table_stacking
    spec.sparse_core.SetInParent()
    spec.sparse_core.initialize_tables_on_host = False
    if stacking.WhichOneof("kind") == "none":
        spec.sparse_core.disable_table_stacking = True
    return Converted(spec, tables, features)


# Where a spec field comes from in the layer: the spec's table and feature fields by name, and
# a JAX table's optimizer and limits.
_TABLE_FIELDS = {
    "name": "name",
    "vocabulary_size": "vocabulary_size",
    "dim": "embedding_dim",
    "combiner": "combiner",
}
_JAX_TABLE_FIELDS = {
    "max_ids_per_partition": "max_ids_per_partition",
    "max_unique_ids_per_partition": "max_unique_ids_per_partition",
    "optimizer": "optimizer",
}
_FEATURE_FIELDS = ("name", "table", "input_shape", "output_shape")


def _optimizer_option(rest: FieldPath) -> FieldPath:
    """The Keras optimizer's config key a spec optimizer field was made from, when it has one
    (the source map places a key the config does not hold at the optimizer)."""
    if not rest:
        return ()
    if rest[0] == "settings" and len(rest) > 1:  # a JAX optimizer's hyperparameter
        return ("config", rest[1])
    if rest[0] in ("learning_rate", "clipvalue"):
        return ("config", rest[0])
    if rest[0] == "weight_decay_factor":
        return ("config", "weight_decay")
    if len(rest) > 1 and rest[0] in ("sgd", "adagrad", "adam", "ftrl"):  # TensorFlow's argument
        return ("config", rest[1])
    return ()


def layer_path(converted: Converted, layer: int, path: FieldPath) -> FieldPath:
    """The field of the KerasModel's ``layer`` that the spec field at ``path`` was made from (the
    nearest one: a table or feature, else the layer)."""
    at: FieldPath = ("layers", layer)
    if len(path) >= 2 and path[0] == "tables" and isinstance(path[1], int):
        at = (*at, "tables", converted.tables[path[1]])
        rest = path[2:]
        if rest and rest[0] in _TABLE_FIELDS:
            return (*at, _TABLE_FIELDS[str(rest[0])])
        if len(rest) >= 2 and rest[0] == "jax" and rest[1] in _JAX_TABLE_FIELDS:
            at = (*at, _JAX_TABLE_FIELDS[str(rest[1])])
            if rest[1] == "optimizer":
                return (*at, *_optimizer_option(rest[2:]))
            return at
        if rest and rest[0] == "optimizer":
            return (*at, "optimizer", *_optimizer_option(rest[1:]))
        return at
    if len(path) >= 2 and path[0] == "features" and isinstance(path[1], int):
        at = (*at, "features", converted.features[path[1]])
        rest = path[2:]
        if rest and rest[0] in _FEATURE_FIELDS:
            return (*at, *rest[:2])
        return at
    return at
