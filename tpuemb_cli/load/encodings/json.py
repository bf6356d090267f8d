"""Protobuf's JSON mapping (``.json``): field names in lowerCamelCase or as declared."""

from __future__ import annotations

import json
from functools import partial
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format
from google.protobuf.message import Message

from tpuemb_cli.load.document import MAX_DEPTH, Document, decode, is_fatal
from tpuemb_cli.load.encodings import lossless
from tpuemb_cli.load.encodings.mapping_out import printable
from tpuemb_cli.load.json_editor import text_edits
from tpuemb_cli.load.json_parser import json_spans, parse_json
from tpuemb_cli.load.source import SourceMap, Span, utf8
from tpuemb_cli.model import schema
from tpuemb_cli.model.shorthands import PLAIN_VALUE_HINTS

if TYPE_CHECKING:
    from tpuemb_cli.model.paths import FieldPath

__all__ = ["load", "render", "sniff", "text_edits"]


def sniff(data: bytes) -> bool:
    """A JSON object: text whose first character is ``{``."""
    try:
        return utf8(data).lstrip().startswith("{")
    except UnicodeDecodeError:
        return False


def load(data: bytes, name: str, message_type: str | None) -> Document:
    text = decode(data, name, "json", message_type)
    if isinstance(text, Document):
        return text
    type_name = message_type or schema.DEFAULT_TYPE
    reader = schema.lookup(type_name).json_reader
    if reader:  # JSON of its own (a Keras model's config.json), read by its module
        import importlib

        module = importlib.import_module(reader)
        read: Document = module.load_text(text, name, "json")
        return read
    message = schema.resolve(type_name)()
    parsed = parse_json(text, message, MAX_DEPTH, PLAIN_VALUE_HINTS)
    ok = not is_fatal(parsed.problems)
    # JSON that did not parse has no fields to place: its problems carry their own spans, and
    # scanning the text for field paths could cost its depth squared.
    # A partial, not a closure: the document pickles (`tpuemb diff` loads a side elsewhere).
    source = (
        SourceMap.lazy(text, partial(_spans, text, parsed.value, type_name))
        if ok
        else SourceMap(text)
    )
    return Document(
        name,
        "json",
        type_name,
        message if ok else None,
        source,
        parsed.problems,
        text=text,
        failed=parsed.failed,
    )


def _spans(
    text: str, value: Any, type_name: str, _: frozenset[FieldPath] | None
) -> dict[FieldPath, Span]:
    return json_spans(text, value, schema.resolve(type_name).DESCRIPTOR)


def render(message: Message) -> bytes:
    """protobuf's JSON printer's output (``MessageToJson``: its mapping, ``json.dumps`` with an
    indent of 2), FLT_MAX written so that it reads back; refused if it cannot carry every
    field."""
    mapping = printable(json_format.MessageToDict(message), message.DESCRIPTOR)
    output = json.dumps(mapping, indent=2) + "\n"
    return lossless(output.encode("utf-8"), message, lambda b: json_format.Parse(output, b), "json")
