"""Is this file a TPU embedding document? Decided by content, before it is linted.

A repository holds many files with tpuemb's extensions that are something else: npm and editor
JSON, Compose, Kubernetes and CI YAML, other projects' textprotos (TF Serving, TFX, Object
Detection, MediaPipe, Caffe), SavedModel fingerprints. A file is a document when its top-level
field names are those of a message type tpuemb reads -- at least one field that only that type
has (its signature) and no more unknown names than known ones, or every name known; in JSON and
YAML its signature fields must hold what that type's do too -- or when a `# proto-message:`
header names such a type, or, in binary, when it parses as one with no unknown field. JSONC
(comments, trailing commas) is judged by its keys like JSON (``recognise_mapping`` judges JSON
and YAML). Only the start of a text file is read for this (a config's first top-level field
settles it), so recognising costs little beside linting.
"""

from __future__ import annotations

import os
import re
from typing import Any

from google.protobuf.message import DecodeError, Message

from tpuemb_cli.load.signatures import (
    EMPTY,
    MAPPING_TYPES,
    PREFIX,
    SIGNATURES,
    Verdict,
    by_header,
    fields_of,
    judge,
)
from tpuemb_cli.load.text_tokenizer import TOKEN
from tpuemb_cli.model import schema

# Re-exported: the loader, sniffing and tests ask this module.
__all__ = [
    "EMPTY",
    "MAPPING_TYPES",
    "PREFIX",
    "SIGNATURES",
    "Verdict",
    "by_header",
    "fields_of",
    "judge",
    "recognise",
]

# Files that are never configs, whatever their content: a fast path, not the rule.
_NOT_CONFIGS = {
    "fingerprint.pb": "a SavedModel fingerprint",
    "keras_metadata.pb": "Keras metadata of a SavedModel",
    "saved_model_config.pb": "a SavedModel's runtime configuration",
}
_CONFIG_SIGNATURE = SIGNATURES["TPUEmbeddingConfiguration"]
_TEXT_TYPES = (
    "TPUEmbeddingConfiguration",
    "OptimizationParameters",
    "GraphDef",
    "SparseCoreTableLayouts",
)
_BINARY_TYPES = (
    "TPUEmbeddingConfiguration",
    "GraphDef",
    "OptimizationParameters",
    "SparseCoreTableLayouts",
)
# A layout's own field names: a spec in text format has `tables` too, but never these. Compiled
# by ``re`` when a text's top-level field is `tables`, not at start-up.
_LAYOUT_FIELD = r"\b(?:stacked_)?table_name\s*:"


# A text config (the loader's default type).
_A_CONFIG = Verdict(True)


def recognise(name: str, data: bytes, encoding: str) -> Verdict:
    """Whether ``data`` (named ``name``, in ``encoding`` by its name) is a TPU embedding
    document."""
    base = os.path.basename(name)  # noqa: PTH119 -- a tenth of PurePath(name).name's cost per file
    if base in _NOT_CONFIGS:
        return Verdict(False, reason=_NOT_CONFIGS[base])
    if encoding == "binary":
        text = _as_text(data)
        if text is None:
            return _binary(base, data)
        verdict = _text(text)
        return verdict._replace(encoding="text") if verdict.ok else verdict
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Binary saved under a text name (the mirror of text in a .pb)?
        verdict = _binary(base, data)
        if verdict.ok:
            return verdict._replace(encoding="binary")
        return Verdict(False, reason="it is not UTF-8 text, nor a binary TPU embedding message")
    if encoding == "text":
        return _text(text)
    if encoding in ("json", "yaml"):
        from tpuemb_cli.load import recognise_mapping  # only for JSON and YAML files

        return (
            recognise_mapping.judge_json(text)
            if encoding == "json"
            else recognise_mapping.judge_yaml(text)
        )
    return Verdict(True)  # an encoding tpuemb does not know how to sniff: take it as it is


def _text(text: str) -> Verdict:
    headed = by_header(text)
    if headed is not None:
        return headed
    names, node_fields = _text_names(text[:PREFIX])
    if len(names) == 1 and names[0] in _CONFIG_SIGNATURE:
        return _A_CONFIG  # what _judge says, without its sets: most files are configs
    verdict = judge(names, _TEXT_TYPES)
    if verdict.message_type == "GraphDef" and not _graph_nodes(node_fields):
        return Verdict(False, reason="its `node`s are not TensorFlow graph nodes (no `op`)")
    if verdict.message_type == "SparseCoreTableLayouts" and not looks_like_layouts(text[:PREFIX]):
        return Verdict(False, reason="its `tables` are not SparseCore layouts (no `table_name`)")
    if verdict.message_type == "TPUEmbeddingConfiguration":
        return verdict._replace(message_type=None)  # the loader's default
    return verdict


def looks_like_layouts(text: str) -> bool:
    """Whether a text whose top-level field is `tables` names a layout's fields."""
    return re.search(_LAYOUT_FIELD, text) is not None


def _text_names(text: str) -> tuple[list[str], list[str]]:
    """The field names at the top level of a text-format ``text``, and those inside its first
    top-level ``node`` blocks (to tell a GraphDef from other graphs)."""
    names: list[str] = []
    node_fields: list[str] = []
    depth = 0
    previous = ""
    in_node = False
    for match in TOKEN.finditer(text):
        kind = match.lastindex
        if kind is None:
            break
        token = match.group(kind)
        if kind == 5 and token in "{<":
            if depth == 0 and previous == "node":
                in_node = True
            depth += 1
        elif kind == 5 and token in "}>":
            depth = max(depth - 1, 0)
            if depth == 0:
                in_node = False
        elif kind == 2:
            rest = text[match.end() : match.end() + 64].lstrip()[:1]
            if rest in (":", "{", "<"):
                if depth == 0:
                    names.append(token)
                    if token in _CONFIG_SIGNATURE and len(names) == 1:
                        break  # a config's first field: settled
                elif depth == 1 and in_node and len(node_fields) < 64:
                    node_fields.append(token)
        if kind != 1:
            previous = token
    return names, node_fields


def _graph_nodes(node_fields: list[str]) -> bool:
    node: Any = schema.resolve("GraphDef").DESCRIPTOR.fields_by_name["node"].message_type
    node_def = {field.name for field in node.fields}
    return "op" in node_fields and all(name in node_def for name in node_fields)


def _as_text(data: bytes) -> str | None:
    """``data`` as text when it is text format saved under a binary name: UTF-8 with no control
    characters but whitespace, starting with a field name or a comment."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f]", text[:PREFIX]):
        return None
    first = text.lstrip()[:1]
    return text if first.isalpha() or first in "#_" else None


def _binary(base: str, data: bytes) -> Verdict:
    if base == "saved_model.pb":
        return Verdict(True)  # the loader reads it as a SavedModel
    unsigned = []
    for type_name in _BINARY_TYPES:
        outcome = _parse_binary(type_name, data)
        if outcome == "":
            default = type_name == schema.DEFAULT_TYPE
            return Verdict(True, message_type=None if default else type_name)
        if outcome == _UNSIGNED:
            unsigned.append(type_name)
    if unsigned:
        type_name = unsigned[0]
        return Verdict(False, reason=f"it parses as {type_name} but has {_MISSING[type_name]}")
    tried = ", ".join(_BINARY_TYPES[:-1]) + f" or {_BINARY_TYPES[-1]}"
    return Verdict(False, reason=f"it parses as no {tried} without unknown fields")


# What a binary message lacks when it parses but holds none of the fields that make it one.
_MISSING = {
    "TPUEmbeddingConfiguration": "no `table_descriptor`",
    "GraphDef": "no `node` with a name and an op",
    "OptimizationParameters": "no optimization algorithm",
    "SparseCoreTableLayouts": "no `tables` with a table_name and a stacked_table_name",
}
_UNSIGNED = "unsigned"


def _parse_binary(type_name: str, data: bytes) -> str:
    """How ``data`` reads as a binary ``type_name``: "" when it is one; else "corrupt",
    "unknown fields" or _UNSIGNED (it parses, but has none of the fields that make one)."""
    message = schema.resolve(type_name)()
    try:
        message.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError):
        return "corrupt"
    if has_unknown_fields(message, data):
        return "unknown fields"
    return "" if _binary_signature(type_name, message) else _UNSIGNED


def is_binary(type_name: str, data: bytes) -> bool:
    """Whether ``data`` is a binary ``type_name``: it parses with no unknown field and has a field
    that makes one."""
    return _parse_binary(type_name, data) == ""


def other_binary_type(data: bytes, other_than: str) -> str | None:
    """The message type tpuemb reads from binary, other than ``other_than``, that ``data`` is
    (it parses with no unknown field and has a field that makes one), if any: what to suggest
    when it does not read as the type it was read as."""
    for type_name in _BINARY_TYPES:
        if type_name != other_than and _parse_binary(type_name, data) == "":
            return type_name
    return None


def held_encoding(data: bytes, encoding: str, message_type: str) -> str | None:
    """The encoding ``data`` holds when its name says ``encoding`` but it is the other one, for
    an input whose type the user gave (--type): text in a binary name; bytes that are not UTF-8
    but parse as a binary ``message_type`` in a text name. None: as the name says."""
    if encoding == "binary":
        return "text" if _as_text(data) is not None else None
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError:
        parsed = _parse_binary(schema.lookup(message_type).name, data)
        return "binary" if parsed in ("", _UNSIGNED) else None
    return None


def has_unknown_fields(message: Message, data: bytes) -> bool:
    """Whether ``message``, parsed from ``data``, holds fields its type does not define."""
    copy = type(message)()
    copy.CopyFrom(message)
    copy.DiscardUnknownFields()
    return copy.ByteSize() != len(data)


def _binary_signature(type_name: str, message: Any) -> bool:
    if type_name == "TPUEmbeddingConfiguration":
        return bool(message.table_descriptor)
    if type_name == "GraphDef":
        return bool(message.node) and all(node.name and node.op for node in message.node)
    if type_name == "OptimizationParameters":
        return message.WhichOneof("parameters") is not None
    if type_name == "SparseCoreTableLayouts":
        tables = message.tables
        return bool(tables) and all(t.table_name and t.stacked_table_name for t in tables)
    return True  # a type tpuemb does not sniff binary for: only a --type names it
