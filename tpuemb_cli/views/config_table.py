"""The table ``explain`` shows of a ``TPUEmbeddingConfiguration`` (a config's, or the one a spec
compiles to): every table's effective optimizer settings, its features, the features whose
``table_id`` names no table, and the topology. Shared by the spec and config views
(views/explain) and the Keras view of a layer TPUEmbedding (v1) builds
(frontends/keras/views/model)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from tpuemb_cli.model.pbcompat import enum_type
from tpuemb_cli.model.words import count, number, plural, printable
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import ClippingLimits, OptimizationParameters
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.rules.base import feature_label

if TYPE_CHECKING:
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


def clip_range(limits: ClippingLimits, present: bool) -> str:
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


def status(message: Message, name: str) -> str:
    """An enum field's value named in lower case (open enums: an undeclared number as is)."""
    descriptor: Any = message.DESCRIPTOR
    return value(message, descriptor.fields_by_name[name]).lower()


def settings(params: OptimizationParameters, schedules: dict[int, str]) -> list[str]:
    """The values of SETTINGS for ``params``."""
    decay = "-"
    if params.weight_decay_factor:
        decay = number(params.weight_decay_factor)
        if params.multiply_weight_decay_factor_by_learning_rate:
            decay += " x lr"
    return [
        params.WhichOneof("parameters") or "none",
        _rate(params, schedules),
        clip_range(params.clipping_limits, params.HasField("clipping_limits")),
        clip_range(params.gradient_clipping_limits, params.HasField("gradient_clipping_limits")),
        decay,
        status(params, "gradient_accumulation_status"),
        status(params, "low_dimensional_packing_status"),
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
        shown = ["none"] + ["-"] * (len(SETTINGS) - 1)
    else:
        shown = settings(table.optimization_parameters, schedules)
    return [name, size, *shown, ", ".join(features) or "-"]


def _strays(config: TPUEmbeddingConfiguration) -> list[str]:
    """A line for each feature whose `table_id` names no table: it has no row to be listed in."""
    tables = len(config.table_descriptor)
    return [
        f"{feature_label(config, index)}: table_id {feature.table_id} -- no such table"
        for index, feature in enumerate(config.feature_descriptor)
        if not 0 <= feature.table_id < tables
    ]


def config_tables(config: TPUEmbeddingConfiguration, schedules: dict[int, str]) -> list[str]:
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


def value(message: Message, field: FieldDescriptor) -> str:
    """A field's value as explain shows it: a message by its size, an enum by its name."""
    held = getattr(message, field.name)
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return f"{{{plural(held.ByteSize(), 'byte')}}}" if message.HasField(field.name) else "-"
    if field.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return number(held)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "true" if held else "false"
    if field.type == FieldDescriptor.TYPE_ENUM:
        names = enum_type(field).values_by_number
        return names[held].name if held in names else str(held)
    return str(held)


def compiled_tables(facts: SpecFacts) -> list[str]:
    """The table of the config a spec compiles to, each table's schedule by name (what
    ``explain`` shows of a TPUEmbedding spec)."""
    compiled = facts.compiled
    return config_tables(compiled.config, {tag: name for name, tag in compiled.tags.items()})
