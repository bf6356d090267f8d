"""Hover and completion for one document: what is under the cursor, in the document's schema.

Text format, JSON and YAML are followed by their structure (``load.cursor``). The message type is
the one the last lint loaded the document as, else the one its ``# proto-message:`` header or its
extension says. JSON and YAML name a field as declared or by its JSON name, as their loader reads
them; completion offers the spelling the names around the cursor use (else JSON's own camelCase
in JSON, the declared names in YAML, as ``convert`` writes each), and inserts what the encoding
needs: a quoted key and `: ` in JSON, `key: ` in YAML.
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


_LOCATORS: dict[str, Callable[[str, int], cursor.Context]] = {
    "text": cursor.text_format_context,
    "json": cursor.json_context,
    "yaml": cursor.yaml_context,
}


def _locator(uri: str) -> Callable[[str, int], cursor.Context] | None:
    return _LOCATORS.get(_format(uri))


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


def _in_comment(uri: str, text: str, offset: int) -> bool:
    if _format(uri) == "json":
        return False  # JSON has no comments (and `#` in a string is text)
    line_start = text.rfind("\n", 0, offset) + 1
    return "#" in text[line_start:offset]


def hover(uri: str, text: str, offset: int, linted: Linted | None) -> tuple[str, Span] | None:
    """Markdown for what is under the cursor and the span it covers: a rule (its code anywhere,
    or its name in a suppression comment), or a field or enum value in the schema."""
    word = _word_at(text, offset)
    if word is None:
        return None
    value, span = word
    commented = _in_comment(uri, text, span[0])
    if _RULE_CODE.match(value) or (commented and find(value) is not None):
        doc = schema_help.rule_hover(value)
        return (doc, span) if doc is not None else None
    locate = _locator(uri)
    if locate is None or commented:
        return None
    place = locate(text, span[0])
    json_names = _format(uri) != "text"
    message = schema_help.message_at(_root(uri, text, linted), place.path, json_names)
    if message is None:
        return None
    if place.key is None:
        field = schema_help.field_named(message, value, json_names)
        return (schema_help.field_hover(field), span) if field is not None else None
    field = schema_help.field_named(message, place.key, json_names)
    if field is None or field.enum_type is None:
        return None
    doc = schema_help.enum_value_hover(field.enum_type, value)
    return (doc, span) if doc is not None else None


def _camel_case(place: cursor.Context, fmt: str) -> bool:
    """Whether to offer fields by their JSON names: as the names around the cursor are written,
    else as ``convert`` writes the encoding (JSON camelCase, YAML as declared)."""
    names = place.written | set(place.path)
    if any(name != name.lower() for name in names):
        return True
    if any("_" in name for name in names):
        return False
    return fmt == "json"


def _for_encoding(item: Item, fmt: str, key: bool, quoted: bool) -> Item:
    """``item`` with the text it inserts in ``fmt``: a key with its `: ` (quoted in JSON), an
    enum value quoted in JSON. ``quoted``: the word typed opened a quote, which the editor
    matches with the rest of it."""
    if fmt == "text":
        return item
    if key:
        insert = f'"{item.label}": ' if fmt == "json" else f"{item.label}: "
    elif fmt == "json" and item.kind == "enum_member":
        insert = f'"{item.label}"'
    else:
        insert = item.label
    return item._replace(insert=insert, filter=f'"{item.label}"' if quoted else item.label)


def completions(
    uri: str, text: str, offset: int, linted: Linted | None
) -> tuple[list[Item], Span] | None:
    """The field names that may go at the cursor (those not written yet), or the values of the
    field it is on; and the span of text they replace (the word typed, with its quotes)."""
    locate = _locator(uri)
    if locate is None or _in_comment(uri, text, offset):
        return None
    place = locate(text, offset)
    fmt = _format(uri)
    json_names = fmt != "text"
    message = schema_help.message_at(_root(uri, text, linted), place.path, json_names)
    if message is None:
        return None
    if place.key is None:
        items = schema_help.field_items(
            message, place.written, repeats=fmt == "text", json_names=_camel_case(place, fmt)
        )
    else:
        field = schema_help.field_named(message, place.key, json_names)
        if field is None:
            return None
        items = schema_help.value_items(field)
    quoted = offset - place.span[0] > len(place.prefix)
    return [_for_encoding(item, fmt, place.key is None, quoted) for item in items], place.span
