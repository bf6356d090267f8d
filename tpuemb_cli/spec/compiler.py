"""Compiling a spec: exactly the TPUEmbeddingConfiguration TensorFlow 2.21 builds from the same
Python objects (``TPUEmbedding.__init__`` + ``_create_config_proto`` in TensorFlow 2.21's
tensorflow/python/tpu/tpu_embedding_v2.py).

- Tables are taken in order of first use by the features, in flatten order (a dict's keys sorted);
  a table no feature uses is not in the config at all.
- A table without an optimizer takes the spec's; unnamed tables are named ``table_<i>``.
- Dynamic tags: the distinct schedules in table order of first use, numbered from 0; constant
  rates take no tag.
- ``vocabulary_size`` is padded to the number of hosts; ``mode`` is TRAINING; the cores are
  hosts x cores per host; SPMD is written when a replica spans several cores.
- Feature descriptors: the name when set, the table's index, and the output shape TensorFlow
  computes from the batch size or the input shapes.

The compiler assumes a spec the spec rules accept; where one is broken (a feature naming no
table), it skips what it cannot build, and the rules say why.
"""

from __future__ import annotations

from typing import NamedTuple

from tpuemb_cli.model import optimizers
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, Feature, Optimizer, Table
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import (
    GradientAccumulationStatus,
    LowDimensionalPackingStatus,
    OptimizationParameters,
)
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration


class Compiled(NamedTuple):
    """The config, and where each of its parts comes from in the spec."""

    config: TPUEmbeddingConfiguration
    table_sources: list[int]  # config table i <- spec.tables[table_sources[i]]
    feature_sources: list[int]  # config feature k <- spec.features[feature_sources[k]]
    optimizer_sources: list[FieldPath | None]  # spec path of each config table's optimizer
    tags: dict[str, int]  # schedule name -> dynamic tag

    def spec_path(self, path: FieldPath) -> FieldPath:
        """Where in the spec the config field at ``path`` comes from (as near as it has one)."""
        if len(path) >= 2 and path[0] == "table_descriptor" and isinstance(path[1], int):
            index = path[1]
            if index >= len(self.table_sources):
                return ()
            rest = path[2:]
            if rest and rest[0] == "optimization_parameters":
                if len(rest) > 1 and rest[1] == "simulated_quantization":
                    return ("tables", self.table_sources[index], "quantization")
                source = self.optimizer_sources[index]
                if source is None:
                    return ("tables", self.table_sources[index])
                return source + _optimizer_field(rest[1:])
            table = ("tables", self.table_sources[index])
            field = {"dimension": "dim", "vocabulary_size": "vocabulary_size", "name": "name"}
            if rest and isinstance(rest[0], str) and rest[0] in field:
                return table + (field[rest[0]],)
            return table
        if len(path) >= 2 and path[0] == "feature_descriptor" and isinstance(path[1], int):
            if path[1] >= len(self.feature_sources):
                return ()
            feature = ("features", self.feature_sources[path[1]])
            rest = path[2:]
            if rest and rest[0] == "table_id":
                return feature + ("table",)
            return feature
        if path and isinstance(path[0], str) and path[0] in _TOPOLOGY_FIELDS:
            # The topology's own field (its line when written; the `topology` block's else).
            return ("topology", _TOPOLOGY_FIELDS[path[0]])
        return ()


# The config's topology fields -> the spec's Topology fields they are compiled from.
_TOPOLOGY_FIELDS = {
    "num_hosts": "num_hosts",
    "num_tensor_cores": "cores_per_host",
    "spmd_sharding": "num_cores_per_replica",
    "pipeline_execution_with_tensor_core": "pipeline_execution_with_tensor_core",
}


# OptimizationParameters fields -> the spec optimizer's fields they come from (an algorithm's
# fields: its arguments in ``model.optimizers``).
_OPTIMIZER_FIELDS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("learning_rate",): ("learning_rate",),
    ("clipping_limits", "lower"): ("clip_weight_min",),
    ("clipping_limits", "upper"): ("clip_weight_max",),
    ("clipping_limits",): ("clip_weight_min",),
    ("gradient_clipping_limits",): ("clipvalue",),
    ("weight_decay_factor",): ("weight_decay_factor",),
    ("multiply_weight_decay_factor_by_learning_rate",): (
        "multiply_weight_decay_factor_by_learning_rate",
    ),
    ("gradient_accumulation_status",): ("use_gradient_accumulation",),
    ("low_dimensional_packing_status",): ("low_dimensional_packing_status",),
}


def _optimizer_field(rest: FieldPath) -> FieldPath:
    """The spec optimizer field behind an OptimizationParameters path (the longest match)."""
    names = tuple(step for step in rest if isinstance(step, str))
    for length in range(len(names), 0, -1):
        found = _OPTIMIZER_FIELDS.get(names[:length])
        if found is not None:
            return found
    row = optimizers.optimizer(names[0]) if len(names) >= 2 else None
    argument = row.written_to(names[1]) if row is not None else None
    return (row.spec, argument.name) if row is not None and argument is not None else ()


def flatten_order(spec: EmbeddingSpec) -> list[int]:
    """Feature indexes in nest.flatten order: as listed, or by sorted key when keyed."""
    indexes = list(range(len(spec.features)))
    if any(feature.key for feature in spec.features):
        indexes.sort(key=lambda i: tuple(spec.features[i].key.split("/")))
    return indexes


def table_indexes(spec: EmbeddingSpec) -> dict[str, int]:
    """The spec index of each table name (the first table, if a name is given twice)."""
    indexes: dict[str, int] = {}
    for index, table in enumerate(spec.tables):
        if table.name:
            indexes.setdefault(table.name, index)
    return indexes


def resolve_table(
    spec: EmbeddingSpec, feature: Feature, names: dict[str, int] | None = None
) -> int | None:
    """The spec index of the table a feature names (``#<index>`` for an unnamed one). Callers
    that resolve every feature pass ``names`` (``table_indexes``), built once: looking each name
    up by a walk of the tables made a spec of thousands of tables take seconds."""
    reference = feature.table
    if reference.startswith("#") and reference[1:].isdigit():
        index = int(reference[1:])
        return index if index < len(spec.tables) else None
    return (names if names is not None else table_indexes(spec)).get(reference)


def effective_optimizer(spec: EmbeddingSpec, table: Table) -> Optimizer | None:
    if table.HasField("optimizer"):
        return table.optimizer
    if spec.HasField("optimizer"):
        return spec.optimizer
    return None


def schedule_of(optimizer: Optimizer) -> str | None:
    rate = optimizer.learning_rate
    return rate.schedule if rate.WhichOneof("value") == "schedule" else None


def constant_rate(optimizer: Optimizer) -> float:
    rate = optimizer.learning_rate
    if rate.WhichOneof("value") == "constant":
        return rate.constant
    row = optimizers.of_spec(optimizer.WhichOneof("algorithm"))
    return row.learning_rate if row is not None else optimizers.CUSTOM_LEARNING_RATE


def set_optimization_parameters(optimizer: Optimizer, params: OptimizationParameters) -> None:
    """``_Optimizer._set_optimization_parameters`` and its subclasses, field for field."""
    if optimizer.HasField("use_gradient_accumulation"):
        accumulate = optimizer.use_gradient_accumulation
    else:
        # TensorFlow's CustomOptimizer passes use_gradient_accumulation=False to its base class;
        # every other optimizer defaults to True.
        accumulate = not (
            optimizer.WhichOneof("algorithm") == "custom"
            and optimizer.custom.type == "CustomOptimizer"
        )
    params.gradient_accumulation_status = (
        GradientAccumulationStatus.ENABLED if accumulate else GradientAccumulationStatus.DISABLED
    )
    clip = optimizer.clipvalue
    kind = clip.WhichOneof("kind") if optimizer.HasField("clipvalue") else None
    if kind == "scalar":
        params.gradient_clipping_limits.lower.value = -1.0 * clip.scalar
        params.gradient_clipping_limits.upper.value = clip.scalar
    elif kind == "range":
        if clip.range.HasField("min"):
            params.gradient_clipping_limits.lower.value = clip.range.min
        if clip.range.HasField("max"):
            params.gradient_clipping_limits.upper.value = clip.range.max
    if optimizer.HasField("clip_weight_min"):
        params.clipping_limits.lower.value = optimizer.clip_weight_min
    if optimizer.HasField("clip_weight_max"):
        params.clipping_limits.upper.value = optimizer.clip_weight_max
    if optimizer.weight_decay_factor:  # TensorFlow tests truthiness: 0 writes nothing
        params.weight_decay_factor = optimizer.weight_decay_factor
        if optimizer.multiply_weight_decay_factor_by_learning_rate:
            params.multiply_weight_decay_factor_by_learning_rate = True
    params.low_dimensional_packing_status = (
        LowDimensionalPackingStatus.ENABLED
        if optimizer.low_dimensional_packing_status
        else LowDimensionalPackingStatus.UNSPECIFIED
    )
    algorithm = optimizer.WhichOneof("algorithm")
    row = optimizers.of_spec(algorithm) if algorithm is not None else None
    if row is None:
        return  # no algorithm, or a custom one: TensorFlow's base class writes none
    settings = getattr(optimizer, row.spec)
    target = getattr(params, row.field)
    target.SetInParent()
    for argument in row.arguments:
        if argument.field is None:
            continue  # kept by the Python object only (an initial slot value)
        value = (
            getattr(settings, argument.name)
            if settings.HasField(argument.name)
            else argument.default
        )
        setattr(target, argument.field, not value if argument.inverted else value)


def output_shape(feature: Feature, batch: int) -> list[int] | None:
    """``_get_and_update_output_shapes_from_input``: None when it cannot be known."""
    if feature.output_shape:
        return list(feature.output_shape)
    if batch > 0:
        if feature.max_sequence_length > 0:
            return [batch, feature.max_sequence_length]
        return [batch]
    shape = list(feature.input_shape)
    if not shape:
        return None
    if len(shape) == 1:
        return shape
    if len(shape) == 2 and shape[-1] != 1 and feature.max_sequence_length > 0:
        return [shape[0], feature.max_sequence_length]
    return shape[:-1]


def compile_spec(spec: EmbeddingSpec) -> Compiled:
    topology = spec.topology
    hosts = topology.num_hosts
    order = flatten_order(spec)
    names_to_indexes = table_indexes(spec)
    table_order: list[int] = []
    positions: dict[int, int] = {}  # spec index -> position in table_order (the table_id)
    for index in order:
        used = resolve_table(spec, spec.features[index], names_to_indexes)
        if used is not None and used not in positions:
            positions[used] = len(table_order)
            table_order.append(used)

    names = [
        spec.tables[index].name or f"table_{position}" for position, index in enumerate(table_order)
    ]
    tags: dict[str, int] = {}
    optimizer_sources: list[FieldPath | None] = []
    for index in table_order:
        table = spec.tables[index]
        optimizer = effective_optimizer(spec, table)
        optimizer_sources.append(
            ("tables", index, "optimizer")
            if table.HasField("optimizer")
            else ("optimizer",)
            if optimizer is not None
            else None
        )
        schedule = schedule_of(optimizer) if optimizer is not None else None
        if schedule is not None and schedule not in tags:
            tags[schedule] = len(tags)

    config = TPUEmbeddingConfiguration()
    for position, index in enumerate(table_order):
        table = spec.tables[index]
        descriptor = config.table_descriptor.add()
        descriptor.name = names[position]
        descriptor.vocabulary_size = max(table.vocabulary_size, hosts)
        descriptor.dimension = table.dim
        optimizer = effective_optimizer(spec, table)
        if optimizer is not None:
            params = descriptor.optimization_parameters
            schedule = schedule_of(optimizer)
            if schedule is not None:
                params.learning_rate.dynamic.tag = tags[schedule]
            else:
                params.learning_rate.constant = constant_rate(optimizer)
            if optimizer.low_dimensional_packing_status:
                params.low_dimensional_packing_status = LowDimensionalPackingStatus.ENABLED
            set_optimization_parameters(optimizer, params)
        if table.HasField("quantization"):
            quantization = descriptor.optimization_parameters.simulated_quantization
            quantization.enabled = True
            quantization.num_buckets = table.quantization.num_buckets
            quantization.clipping_limits.lower.value = table.quantization.lower
            quantization.clipping_limits.upper.value = table.quantization.upper

    config.mode = TPUEmbeddingConfiguration.TRAINING
    config.num_hosts = hosts
    # Out of int32's range a spec rule (spec-invalid-topology) reports; the config says 0.
    cores = hosts * topology.cores_per_host
    config.num_tensor_cores = cores if cores <= (1 << 31) - 1 else 0
    config.sharding_strategy = TPUEmbeddingConfiguration.DIV_DEFAULT
    config.pipeline_execution_with_tensor_core = topology.pipeline_execution_with_tensor_core
    if topology.HasField("num_cores_per_replica"):
        config.spmd_sharding.enabled = True
        config.spmd_sharding.num_cores_per_replica = topology.num_cores_per_replica

    feature_sources: list[int] = []
    for index in order:
        feature = spec.features[index]
        table_index = resolve_table(spec, feature, names_to_indexes)
        if table_index is None:
            continue
        feature_descriptor = config.feature_descriptor.add()
        if feature.name:
            feature_descriptor.name = feature.name
        feature_descriptor.table_id = positions[table_index]
        shape = output_shape(feature, topology.per_replica_batch_size)
        feature_descriptor.input_shape.extend(shape or [])
        feature_sources.append(index)
    return Compiled(config, table_order, feature_sources, optimizer_sources, tags)
