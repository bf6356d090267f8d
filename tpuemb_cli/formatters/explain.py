"""`tpuemb explain`: what TensorFlow will do with a spec, a config or one optimizer.

For a spec or a config, the effective settings of every table, so a reviewer sees what TensorFlow
will do: optimizer, learning rate (constant, or tag and schedule), clipping, decay, accumulation,
packing and the features that use the table; then the features whose `table_id` names no table,
and the topology. For an `OptimizationParameters` file, the same settings of that one optimizer,
with every parameter of its algorithm: it belongs to no table and has no topology, so none is
shown."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from tpuemb_cli.formatters.style import printable
from tpuemb_cli.load import Document
from tpuemb_cli.model import schema
from tpuemb_cli.model.pbcompat import enum_type
from tpuemb_cli.model.words import count, number, plural
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import ClippingLimits, OptimizationParameters
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.rules.base import feature_label
from tpuemb_cli.spec.facts import SpecFacts

# The settings of one optimizer, in the order both views show them.
SETTINGS = (
    "optimizer",
    "learning rate",
    "weight clip",
    "gradient clip",
    "weight decay",
    "accumulation",
    "packing",
)
COLUMNS = ("table", "rows x dim", *SETTINGS, "features")
# Which engine the table's sizes are for, on a spec that trains on SparseCores.
SPARSECORE_ROWS = (
    "rows x dim above: the TensorCore config (TPUEmbedding, vocabularies padded to the hosts); "
    "this spec trains on SparseCores (TPUEmbeddingV2), whose tables are padded and stacked as "
    "follows"
)


def _range(limits: ClippingLimits, present: bool) -> str:
    if not present:
        return "-"
    lower = number(limits.lower.value) if limits.HasField("lower") else "-inf"
    upper = number(limits.upper.value) if limits.HasField("upper") else "inf"
    return f"[{lower}, {upper}]"


def _rate(params: OptimizationParameters, schedules: dict[int, str]) -> str:
    kind = params.learning_rate.WhichOneof("learning_rate")
    if kind == "constant":
        return number(params.learning_rate.constant)
    if kind == "dynamic":
        tag = params.learning_rate.dynamic.tag
        return f"tag {tag}" + (f" ({schedules[tag]})" if tag in schedules else "")
    return "none (0)"


def _status(message: Message, name: str) -> str:
    """An enum field's value named in lower case (open enums: an undeclared number as is)."""
    descriptor: Any = message.DESCRIPTOR
    return _value(message, descriptor.fields_by_name[name]).lower()


def _settings(params: OptimizationParameters, schedules: dict[int, str]) -> list[str]:
    """The values of SETTINGS for ``params``."""
    decay = "-"
    if params.weight_decay_factor:
        decay = number(params.weight_decay_factor)
        if params.multiply_weight_decay_factor_by_learning_rate:
            decay += " x lr"
    return [
        params.WhichOneof("parameters") or "none",
        _rate(params, schedules),
        _range(params.clipping_limits, params.HasField("clipping_limits")),
        _range(params.gradient_clipping_limits, params.HasField("gradient_clipping_limits")),
        decay,
        _status(params, "gradient_accumulation_status"),
        _status(params, "low_dimensional_packing_status"),
    ]


def _features(config: TPUEmbeddingConfiguration) -> dict[int, list[str]]:
    """The features of each table_id, named (``#<index>`` when unnamed), in one pass: one pass
    per table made 6,000 tables and features take 17 s."""
    by_table: dict[int, list[str]] = {}
    for position, feature in enumerate(config.feature_descriptor):
        by_table.setdefault(feature.table_id, []).append(feature.name or f"#{position}")
    return by_table


def _row(
    config: TPUEmbeddingConfiguration, index: int, schedules: dict[int, str], features: list[str]
) -> list[str]:
    table = config.table_descriptor[index]
    name = table.name or f"#{index}"
    size = f"{count(table.vocabulary_size)} x {count(table.dimension)}"
    if not table.HasField("optimization_parameters"):
        settings = ["none"] + ["-"] * (len(SETTINGS) - 1)
    else:
        settings = _settings(table.optimization_parameters, schedules)
    return [name, size, *settings, ", ".join(features) or "-"]


def _strays(config: TPUEmbeddingConfiguration) -> list[str]:
    """A line for each feature whose `table_id` names no table: it has no row to be listed in."""
    tables = len(config.table_descriptor)
    return [
        f"{feature_label(config, index)}: table_id {feature.table_id} -- no such table"
        for index, feature in enumerate(config.feature_descriptor)
        if not 0 <= feature.table_id < tables
    ]


def _tables(config: TPUEmbeddingConfiguration, schedules: dict[int, str]) -> list[str]:
    # Names come from the config: shown escaped, so that one cannot forge rows or colour a terminal.
    features = _features(config)
    rows = [list(COLUMNS)] + [
        [printable(cell) for cell in _row(config, i, schedules, features.get(i, []))]
        for i in range(len(config.table_descriptor))
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(len(COLUMNS))]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    strays = [printable(line) for line in _strays(config)]
    if strays:
        lines += ["", *strays]
    modes = TPUEmbeddingConfiguration.Mode
    mode = modes.Name(config.mode).lower() if config.mode in modes.values() else str(config.mode)
    topology = (
        f"mode {mode}, {plural(config.num_hosts, 'host')}, "
        f"{plural(config.num_tensor_cores, 'core')}"
    )
    if config.spmd_sharding.enabled:
        topology += (
            f", SPMD {plural(config.spmd_sharding.num_cores_per_replica, 'core')} per replica"
        )
    if config.pipeline_execution_with_tensor_core:
        topology += ", pipelined"
    return [*lines, "", topology]


def _value(message: Message, field: FieldDescriptor) -> str:
    value = getattr(message, field.name)
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return f"{{{plural(value.ByteSize(), 'byte')}}}" if message.HasField(field.name) else "-"
    if field.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return number(value)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "true" if value else "false"
    if field.type == FieldDescriptor.TYPE_ENUM:
        names = enum_type(field).values_by_number
        return names[value].name if value in names else str(value)
    return str(value)


def _algorithm(params: OptimizationParameters) -> str:
    """The algorithm with every parameter TensorFlow reads from it (proto3: an unset value is
    read as 0 or false, so it is shown as that); a deprecated field only when it is set."""
    name = params.WhichOneof("parameters")
    if name is None:
        return "none (no algorithm is set)"
    algorithm: Message = getattr(params, name)
    descriptor: Any = algorithm.DESCRIPTOR
    values = [
        f"{field.name} {_value(algorithm, field)}"
        for field in descriptor.fields
        if not field.GetOptions().deprecated
        or field in (set_field for set_field, _ in algorithm.ListFields())
    ]
    return f"{name} ({', '.join(values)})" if values else name


def _optimizer(params: OptimizationParameters) -> list[str]:
    rows = list(zip(SETTINGS, [_algorithm(params), *_settings(params, {})[1:]], strict=True))
    if params.HasField("simulated_quantization"):
        quantization = params.simulated_quantization
        limits = quantization.clipping_limits
        rows.append(
            (
                "quantization",
                f"{'enabled' if quantization.enabled else 'disabled'}, "
                f"{plural(quantization.num_buckets, 'bucket')}, "
                f"range {_range(limits, quantization.HasField('clipping_limits'))}",
            )
        )
    if params.HasField("hot_id_replication_configuration"):
        hot_ids = params.hot_id_replication_configuration
        rows.append(("hot id replication", _status(hot_ids, "status")))
    width = max(len(label) for label, _ in rows)
    return [f"{label.ljust(width)}  {printable(value)}" for label, value in rows]


def explain_document(document: Document, facts: SpecFacts | None = None) -> str:
    """The explanation of a loaded spec (``facts``: what it compiles to, and its SparseCore
    layout), config or OptimizationParameters: the view its schema row names (``explain``)."""
    assert document.message is not None
    row = schema.row_of(document.message)
    assert row is not None and row.explain, f"explain shows no {type(document.message)}"
    view: Callable[[Document, SpecFacts | None], tuple[str, list[str]]] = globals()[row.explain]
    header, lines = view(document, facts)
    return "\n".join([printable(header), "", *lines]) + "\n"


# The views schema rows name: each returns the header and the lines of its type's explanation.


def explain_optimizer(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """An OptimizationParameters: the settings of that one optimizer."""
    message = document.message
    assert isinstance(message, OptimizationParameters), type(message)
    return f"{document.name} (OptimizationParameters: one table's optimizer)", _optimizer(message)


def explain_spec(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """A spec: the tables of the config it compiles to, and its SparseCore layout if it has
    one."""
    message = document.message
    assert isinstance(message, EmbeddingSpec), type(message)
    assert facts is not None and facts.spec is message, "a spec is explained with its facts"
    compiled = facts.compiled
    schedules = {tag: name for name, tag in compiled.tags.items()}
    header = f"{document.name} (compiled as TensorFlow would)"
    if message.HasField("sparse_core"):
        # TPUEmbeddingV2 builds no TPUEmbeddingConfiguration: the table shows each table's
        # optimizer; its sizes are TPUEmbedding's (padded to the hosts), not SparseCore's.
        header = (
            f"{document.name} (each table's optimizer as TensorFlow compiles it; "
            "the SparseCore layout follows)"
        )
    lines = _tables(compiled.config, schedules)
    if message.HasField("sparse_core"):
        from tpuemb_cli.formatters.sparsecore import explain_stacking

        lines += [
            "",
            *textwrap.wrap(SPARSECORE_ROWS, 100),
            "",
            *explain_stacking(message, facts.layout, facts.sparsecore_memory),
        ]
    return header, lines


def compiled_tables(facts: SpecFacts) -> list[str]:
    """The table of the config a spec compiles to, each table's schedule by name (what
    ``explain`` shows of a TPUEmbedding spec)."""
    compiled = facts.compiled
    return _tables(compiled.config, {tag: name for name, tag in compiled.tags.items()})


def explain_config(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """A config: its tables."""
    message = document.message
    assert isinstance(message, TPUEmbeddingConfiguration), type(message)
    return document.name, _tables(message, {})


def explain_jax_spec(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """A JAX SparseCore EmbeddingSpecProto: its stacks (formatters/jax_spec)."""
    from tpuemb_cli.formatters.jax_spec import explain_jax_spec as stacks

    return stacks(document)


def explain_keras(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """A Keras-RS model: each DistributedEmbedding layer's tables, placements and the library's
    stacks, for the model's ``target`` (formatters/keras)."""
    from tpuemb_cli.formatters.keras import explain_keras as layers
    from tpuemb_cli.spec.keras_plan import plan_model, topology_of

    model: Any = document.message
    return layers(document.name, plan_model(model), topology_of(model))
