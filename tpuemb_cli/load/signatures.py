"""What tells a TPU embedding document from other files, shared by ``recognise`` (text and
binary), ``recognise_mapping`` (JSON and YAML) and ``sniff``: the verdict, judging a file by its
top-level field names against the types' signature fields (``schema.signature``), reading bytes
as a type, and the checks the schema's rows name where their data cannot say (``text_check``,
``lead_check``, ``binary_sniff``: functions of this module, by name)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from google.protobuf.message import DecodeError, Message

from tpuemb_cli.load.limits import escaped
from tpuemb_cli.load.text_tokenizer import proto_message_header
from tpuemb_cli.model import schema
from tpuemb_cli.model.records import Record

# Read at most this much text to find the top-level field names.
PREFIX = 64 * 1024

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


def judge(names: list[str], types: tuple[schema.MessageType, ...]) -> Verdict:
    """The first of ``types`` whose fields these top-level names are, if any: at least one of
    its signature fields and no more unknown names than known ones, or every name known."""
    distinct = list(dict.fromkeys(names))
    if not distinct:
        return Verdict(False, reason=EMPTY)
    # A type that has every name, one of its signature fields among them, before the first that
    # only has most: a front-end's type whose `tables` sit beside fields of its own is that
    # type, not a spec with unknown fields.
    for row in types:
        fields = fields_of(row.name)
        if all(n in fields for n in distinct) and {fields[n] for n in distinct} & (
            schema.signature(row.name)
        ):
            return Verdict(True, message_type=row.name)
    for row in types:
        fields = fields_of(row.name)
        known = {fields[n] for n in distinct if n in fields}
        unknown = len([n for n in distinct if n not in fields])
        signed = bool(known & schema.signature(row.name))
        if (signed and unknown <= len(known)) or (known and not unknown):
            return Verdict(True, message_type=row.name)
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


# Reading bytes as a type.

# What ``parse_binary`` says of bytes that parse as the type but hold none of the fields that
# make one (its row's ``binary_fields``).
UNSIGNED = "unsigned"


def parse_binary(type_name: str, data: bytes) -> str:
    """How ``data`` reads as a binary ``type_name``: "" when it is one; else "corrupt",
    "unknown fields" or UNSIGNED (it parses, but has none of the fields that make one)."""
    message = schema.resolve(type_name)()
    try:
        message.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError):
        return "corrupt"
    if has_unknown_fields(message, data):
        return "unknown fields"
    return "" if holds_signature(type_name, message) else UNSIGNED


def is_binary(type_name: str, data: bytes) -> bool:
    """Whether ``data`` is a binary ``type_name``: it parses with no unknown field and has a field
    that makes one."""
    return parse_binary(type_name, data) == ""


def has_unknown_fields(message: Message, data: bytes) -> bool:
    """Whether ``message``, parsed from ``data``, holds fields its type does not define."""
    copy = type(message)()
    copy.CopyFrom(message)
    copy.DiscardUnknownFields()
    return copy.ByteSize() != len(data)


def holds_signature(type_name: str, message: Any) -> bool:
    """Whether a parsed ``message`` holds what makes one of its type: its row's ``binary_fields``
    (a repeated field with elements, each setting the fields named after it), or with none its
    ``signature_oneof`` set."""
    row = schema.BY_NAME[type_name]
    if row.binary_fields:
        field, *each = row.binary_fields
        items = getattr(message, field)
        return bool(items) and all(getattr(item, name) for item in items for name in each)
    if row.signature_oneof:
        return message.WhichOneof(row.signature_oneof) is not None
    return True  # a type tpuemb does not tell from bytes: only a --type names it


# The checks rows name. A text check takes the start of a text and the field names inside its
# top-level blocks (by the block's field name); a binary sniff takes the bytes.
TextCheck = Callable[[str, Mapping[str, list[str]]], bool]
BinarySniff = Callable[[bytes], bool]


def text_check(name: str) -> TextCheck:
    """The function of this module a row's ``text_check`` or ``lead_check`` names."""
    check: TextCheck = globals()[name]
    return check


def binary_sniff(name: str) -> BinarySniff:
    """The function of this module a row's ``binary_sniff`` names."""
    sniff: BinarySniff = globals()[name]
    return sniff


def graph_nodes(text: str, nested: Mapping[str, list[str]]) -> bool:
    """Whether a text's top-level `node`s are TensorFlow graph nodes: the fields inside them are
    a NodeDef's, `op` among them (other projects' graphs have `node`s too)."""
    node_fields = nested.get("node", [])
    node: Any = schema.resolve("GraphDef").DESCRIPTOR.fields_by_name["node"].message_type
    node_def = {field.name for field in node.fields}
    return "op" in node_fields and all(name in node_def for name in node_fields)


# A layout's own field names: a spec in text format has `tables` too, but never these. Compiled
# by ``re`` when a text's top-level field is `tables`, not at start-up.
_LAYOUT_FIELD = r"\b(?:stacked_)?table_name\s*:"


def layout_fields(text: str, nested: Mapping[str, list[str]]) -> bool:
    """Whether a text whose top-level field is `tables` names a layout's fields."""
    return re.search(_LAYOUT_FIELD, text) is not None


def graph_bytes(data: bytes) -> bool:
    """Whether bytes read as a GraphDef whose every node has a name and an op (with fields the
    mirror does not define, a newer TensorFlow's); a config's do not (its table descriptors'
    second field is a number, where a node's op is text)."""
    if data[:1] != b"\n":
        return False  # no `node` (field 1, length-delimited) first
    graph = schema.resolve("GraphDef")()
    try:
        graph.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError):
        return False
    return holds_signature("GraphDef", graph)


def layouts_bytes(data: bytes) -> bool:
    """Whether bytes read as SparseCore layouts and not as the default type (a config's tables
    read as layouts only with unknown fields: their second field is a number)."""
    return (
        data[:1] == b"\n"  # `tables` (field 1, length-delimited) first
        and not is_binary(schema.DEFAULT_TYPE, data)
        and is_binary("SparseCoreTableLayouts", data)
    )


def jax_spec_bytes(data: bytes) -> bool:
    """Whether bytes read as a JAX EmbeddingSpecProto and not as the default type: a stack's
    first fields read as a config's table descriptor, but its tables (field 10) are unknown
    there, and the stacks must each have a name and tables."""
    return (
        data[:1] == b"\n"  # `stacked_table_specs` (field 1, length-delimited) first
        and not is_binary(schema.DEFAULT_TYPE, data)
        and is_binary("EmbeddingSpecProto", data)
    )
