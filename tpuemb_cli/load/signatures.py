"""What tells a TPU embedding document from other files, shared by ``recognise`` (text and
binary) and ``recognise_mapping`` (JSON and YAML): each type's signature fields, the verdict,
and judging a file by its top-level field names."""

from __future__ import annotations

from functools import cache

from tpuemb_cli.load.limits import escaped
from tpuemb_cli.load.text_tokenizer import proto_message_header
from tpuemb_cli.model import schema
from tpuemb_cli.model.records import Record

# Read at most this much text to find the top-level field names.
PREFIX = 64 * 1024
# Per type, the top-level fields only it has: one of them must be present.
SIGNATURES: dict[str, frozenset[str]] = {
    "TPUEmbeddingConfiguration": frozenset({"table_descriptor", "feature_descriptor"}),
    # Any optimizer algorithm (the `parameters` oneof).
    "OptimizationParameters": frozenset(
        field.name
        for field in schema.resolve("OptimizationParameters")
        .DESCRIPTOR.oneofs_by_name["parameters"]
        .fields
    ),
    "EmbeddingSpec": frozenset({"tables", "features"}),
    "GraphDef": frozenset({"node"}),
    "SparseCoreTableLayouts": frozenset({"tables"}),
}
MAPPING_TYPES = ("TPUEmbeddingConfiguration", "OptimizationParameters", "EmbeddingSpec")

# The reason given for a file with no fields at all: named, it is linted as an empty document
# (all defaults); found by walking, it is skipped.
EMPTY = "it has no fields"


class Verdict(Record):
    """``ok``: a document; then ``encoding`` and ``message_type`` when its content says other
    than its name and the loader's default (None: as they say). Else ``reason`` says what it is."""

    ok: bool
    encoding: str | None = None
    message_type: str | None = None
    reason: str = ""


@cache
def fields_of(type_name: str) -> dict[str, str]:
    """Every name a field of ``type_name`` may have at the top level: declared and JSON names."""
    descriptor = schema.resolve(type_name).DESCRIPTOR
    names = {field.name: field.name for field in descriptor.fields}
    names.update({field.json_name: field.name for field in descriptor.fields})
    return names


def judge(names: list[str], types: tuple[str, ...]) -> Verdict:
    """The type whose fields these top-level names are, if any."""
    distinct = list(dict.fromkeys(names))
    if not distinct:
        return Verdict(False, reason=EMPTY)
    for type_name in types:
        fields = fields_of(type_name)
        known = {fields[n] for n in distinct if n in fields}
        unknown = len([n for n in distinct if n not in fields])
        signed = bool(known & SIGNATURES[type_name])
        if (signed and unknown <= len(known)) or (known and not unknown):
            return Verdict(True, message_type=type_name)
    shown = ", ".join(f"`{escaped(n)}`" for n in distinct[:6]) + (
        ", ..." if len(distinct) > 6 else ""
    )
    return Verdict(False, reason=f"its top-level fields are {shown}")


def by_header(text: str) -> Verdict | None:
    """What a `# proto-message:` header says, if the text has one."""
    header = proto_message_header(text)
    if header is None:
        return None
    try:
        return Verdict(True, message_type=schema.lookup(header).name)
    except KeyError:
        from tpuemb_cli.model.nearest import did_you_mean, nearest

        close = nearest(header.rsplit(".", 1)[-1], schema.known_names())
        return Verdict(
            False, reason=f"its `# proto-message:` header names {header}{did_you_mean(close)}"
        )
