"""Protobuf text format (``.pbtxt``): TensorFlow's own way of writing configs by hand."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from google.protobuf import text_format
from google.protobuf.message import Message

from tpuemb_cli.load.document import MAX_DEPTH, Document, decode, header_type, is_fatal
from tpuemb_cli.load.encodings import lossless
from tpuemb_cli.load.sniff import text_type
from tpuemb_cli.load.source import SourceMap, Span
from tpuemb_cli.load.text_parser import parse_text
from tpuemb_cli.model import schema
from tpuemb_cli.model.paths import FieldPath

if TYPE_CHECKING:
    from tpuemb_cli.model.edits import Fix, TextEdit

__all__ = ["load", "render", "text_edits"]


def load(data: bytes, name: str, message_type: str | None) -> Document:
    text = decode(data, name, "text", message_type)
    if isinstance(text, Document):
        return text
    type_name = message_type or header_type(text) or text_type(text)
    message = schema.resolve(type_name)()
    # Positions are not recorded as the text is parsed: a map entry per field costs a clean file
    # time and several times its size in memory, and made time grow faster than the file (the
    # objects it keeps). A file with a finding is parsed again for the positions of the
    # findings' paths only, skipping every message not on their way.
    parsed = parse_text(text, message, MAX_DEPTH, keep_spans=False)
    return Document(
        name,
        "text",
        type_name,
        None if is_fatal(parsed.problems) else message,
        # A partial of a module function, not a closure: a document loaded in another process
        # (`tpuemb diff` loads its two sides at once) comes back pickled.
        SourceMap.lazy(text, partial(_spans, text, type_name), partial=True),
        parsed.problems,
        parsed.comments,
        text,
    )


def _spans(text: str, type_name: str, wanted: frozenset[FieldPath] | None) -> dict[FieldPath, Span]:
    return parse_text(text, schema.resolve(type_name)(), MAX_DEPTH, wanted or True).spans


def render(message: Message) -> bytes:
    """The text TensorFlow's own printer writes; refused if it cannot carry every field."""
    output = text_format.MessageToString(message)
    return lossless(output.encode("utf-8"), message, lambda b: text_format.Parse(output, b), "text")


def text_edits(fix: Fix, source: SourceMap) -> list[TextEdit] | None:
    """The text edits that make ``fix`` in ``source`` (the editor is imported only by a run
    that fixes)."""
    from tpuemb_cli.load.text_editor import text_edits as edits

    return edits(fix, source)
