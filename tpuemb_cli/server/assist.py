"""Hover and completion for one document: what is under the cursor, in the document's schema.

Text format and YAML specs are followed by their structure (``load.cursor``); JSON gets hover on
rule codes only. The message type is the one the last lint loaded the document as, else the one
its ``# proto-message:`` header or its extension says.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from google.protobuf.descriptor import Descriptor

from tpuemb_cli.load import cursor
from tpuemb_cli.load.document import UnknownHeaderType, header_type
from tpuemb_cli.load.encodings import for_name
from tpuemb_cli.model import schema
from tpuemb_cli.rules import find
from tpuemb_cli.server import schema_help
from tpuemb_cli.server.linting import Linted, name_of
from tpuemb_cli.server.schema_help import Item

_WORD = re.compile(r"[\w.-]+")
_RULE_CODE = re.compile(r"TE\d{3}\Z", re.IGNORECASE)
Span = tuple[int, int]


def _format(uri: str) -> str:
    encoding = for_name(name_of(uri))
    return encoding.name if encoding is not None else "text"


def _locator(uri: str) -> Callable[[str, int], cursor.Context] | None:
    return {"text": cursor.text_format_context, "yaml": cursor.yaml_context}.get(_format(uri))


def _root(uri: str, text: str, linted: Linted | None) -> Descriptor | None:
    if linted is not None and linted.document is not None and linted.document.message is not None:
        return schema_help.root(linted.document.message_type)
    fmt = _format(uri)
    if fmt == "text":
        try:
            named = header_type(text)
        except UnknownHeaderType:
            return None
        if named is not None:
            return schema_help.root(named)
    return schema_help.root(schema.DEFAULT_YAML_TYPE if fmt == "yaml" else schema.DEFAULT_TYPE)


def _word_at(text: str, offset: int) -> tuple[str, Span] | None:
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line = text[line_start : len(text) if line_end == -1 else line_end]
    for match in _WORD.finditer(line):
        if match.start() <= offset - line_start <= match.end():
            return match.group(), (line_start + match.start(), line_start + match.end())
    return None


def _in_comment(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    return "#" in text[line_start:offset]


def hover(uri: str, text: str, offset: int, linted: Linted | None) -> tuple[str, Span] | None:
    """Markdown for what is under the cursor and the span it covers: a rule (its code anywhere,
    or its name in a suppression comment), or a field or enum value in the schema."""
    word = _word_at(text, offset)
    if word is None:
        return None
    value, span = word
    if _RULE_CODE.match(value) or (_in_comment(text, span[0]) and find(value) is not None):
        doc = schema_help.rule_hover(value)
        return (doc, span) if doc is not None else None
    locate = _locator(uri)
    if locate is None or _in_comment(text, span[0]):
        return None
    place = locate(text, span[0])
    message = schema_help.message_at(_root(uri, text, linted), place.path)
    if message is None:
        return None
    if place.key is None:
        field = message.fields_by_name.get(value)
        return (schema_help.field_hover(field), span) if field is not None else None
    field = message.fields_by_name.get(place.key)
    if field is None or field.enum_type is None:
        return None
    doc = schema_help.enum_value_hover(field.enum_type, value)
    return (doc, span) if doc is not None else None


def completions(uri: str, text: str, offset: int, linted: Linted | None) -> list[Item] | None:
    """The field names that may go at the cursor, or the values of the field it is on."""
    locate = _locator(uri)
    if locate is None or _in_comment(text, offset):
        return None
    place = locate(text, offset)
    message = schema_help.message_at(_root(uri, text, linted), place.path)
    if message is None:
        return None
    if place.key is None:
        return schema_help.field_items(message)
    field = message.fields_by_name.get(place.key)
    return schema_help.value_items(field) if field is not None else None
