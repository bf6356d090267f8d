"""Skipping runs of unwanted messages in protobuf text without tokenizing them.

A second parse that looks for the positions of a few fields (the findings' paths) would otherwise
tokenize the whole file again: in a 10,000-table config, the 5,000 tables before the one wanted.
Here a sibling message the parse does not want is passed over by its braces alone: a regex finds
the next brace, quote or comment, so the scan costs a few matches per message, not one per token.
A wanted repeated element whose wanted paths are its own scalar fields (every table's name, when
each table is renamed) is scanned field by field the same way (``scan_element``), its spans
recorded as the parse records them, rather than read token by token.

Only used on text whose first parse succeeded, so every brace closes and every string ends; the
scan stops (and the token-by-token parse takes over) at anything it does not recognise.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from tpuemb_cli.load.source import Span
from tpuemb_cli.load.text_tokenizer import COMMENT, IDENT, NUMBER, STRING, TOKEN
from tpuemb_cli.load.text_values import BadValue, word_value
from tpuemb_cli.model.pbcompat import is_repeated

# Whitespace and comments between tokens. Each comment runs to its line's end, so the pattern
# can split a gap one way only (`(?:\s+|#.*)*` backtracks exponentially on a failing match).
_GAP = r"\s*(?:\#[^\n]*(?:\n|\Z)\s*)*"
# A message field's head: `name {`, `name <`, `name: {` or `name: <` (identifiers as protobuf's).
_HEAD = re.compile(_GAP + r"([a-zA-Z_][0-9a-zA-Z_+-]*)" + _GAP + r":?" + _GAP + r"[{<]")
_SEPARATOR = re.compile(_GAP + r"[,;]")
# What comes next in a message's body: its closer (group 1), or a field's name (group 2) and
# either a message's brace (group 3) or the `:` and the gap before a value.
_NEXT = re.compile(
    _GAP
    + r"(?:([}>])|([a-zA-Z_][0-9a-zA-Z_+-]*)"
    + _GAP
    + r"(?:(:?"
    + _GAP
    + r"[{<])|:"
    + _GAP
    + r"))"
)
CLOSER, MESSAGE, SCALAR = 1, 2, 3  # what ``next_in_body`` found
# What can change the nesting: a brace, or the start of a string or comment that may hold one.
_STRUCTURE = re.compile(r"""[{}<>"'#]""")
# A string literal as text_tokenizer.TOKEN reads it (possibly unterminated at the end of a line).
_STRING = re.compile(
    r""""[^"\n\\]*(?:\\.[^"\n\\]*)*(?:"|\\?$)|'[^'\n\\]*(?:\\.[^'\n\\]*)*(?:'|\\?$)""",
    re.MULTILINE,
)


def message_head(text: str, offset: int) -> tuple[str, int, int] | None:
    """The field name of the message field starting at ``offset`` (after any gap), where the
    name starts and the offset just past its opening brace; None when what follows is not a
    message field's head."""
    head = _HEAD.match(text, offset)
    if head is None:
        return None
    return head.group(1), head.start(1), head.end()


def next_in_body(text: str, offset: int) -> tuple[int, str, int, int] | None:
    """What follows ``offset`` (after any gap) in a message's body, in one match: CLOSER and the
    closing `}` or `>`; MESSAGE, a message field's name, where it starts and the offset just
    past its opening brace; SCALAR, a `name: value` field's name, where it starts and where its
    value starts. None for anything else (a list, a stray symbol, the end of the text)."""
    found = _NEXT.match(text, offset)
    if found is None:
        return None
    if found.lastindex == 1:
        return CLOSER, found.group(1), found.start(1), found.end()
    kind = MESSAGE if found.group(3) is not None else SCALAR
    return kind, found.group(2), found.start(2), found.end()


def body_end(text: str, offset: int) -> int:
    """The offset just past the brace that closes the message whose body starts at ``offset``;
    -1 when the text ends first."""
    level = 1
    search = _STRUCTURE.search
    while True:
        found = search(text, offset)
        if found is None:
            return -1
        at = found.start()
        char = text[at]
        if char in "{<":
            level += 1
            offset = at + 1
        elif char in "}>":
            level -= 1
            offset = at + 1
            if not level:
                return offset
        elif char == "#":
            newline = text.find("\n", at)
            offset = len(text) if newline < 0 else newline
        else:
            offset = _STRING.match(text, at).end()  # type: ignore[union-attr]  # always matches


def after_separator(text: str, offset: int) -> int:
    """``offset`` moved past a `,` or `;` that follows it (after any gap), if there is one."""
    separator = _SEPARATOR.match(text, offset)
    return offset if separator is None else separator.end()


_MESSAGE = FieldDescriptor.CPPTYPE_MESSAGE


def scan_element(
    text: str, descriptor: Any, body: int, wanted: Collection[str | int]
) -> tuple[int, dict[str, Span]] | None:
    """The end of the message of type ``descriptor`` whose body starts at ``body``, and the
    spans of its ``wanted`` fields as the parse records them (from the field's name to the end
    of its value), found with a few regex matches per field rather than by tokens; None when
    the parse must read it instead.

    It takes plain fields only: `name: value` with one value (a word, or string literals), and
    message fields, which it passes by their braces; the wanted ones must be singular scalars,
    given once, whose values convert as the parse converts them. Anything else -- a list, a
    field the type lacks, one given twice, a oneof member, a value that does not convert (the
    parse records a problem, not a span) -- is None."""
    close = ">" if text[body - 1] == "<" else "}"
    fields = descriptor.fields_by_name
    found: dict[str, Span] = {}
    given: set[str] = set()
    offset = body
    while True:
        head = next_in_body(text, offset)
        if head is None:
            return None
        kind, name, name_start, end = head
        if kind == CLOSER:
            return (end, found) if name == close else None
        field = fields.get(name)
        if field is None:
            return None
        if kind == MESSAGE:
            if field.cpp_type != _MESSAGE or name in wanted:
                return None
            end = body_end(text, end)
        else:
            if field.cpp_type == _MESSAGE or field.containing_oneof is not None:
                return None
            if not is_repeated(field):
                if name in given:
                    return None  # the parse says it is given twice
                given.add(name)
            elif name in wanted:
                return None
            end = _value_end(text, field, end, name in wanted)
            if name in wanted:
                found[name] = (name_start, end)
        if end < 0:
            return None
        offset = after_separator(text, end)


def _value_end(text: str, field: Any, offset: int, converted: bool) -> int:
    """The end of the value of ``field`` at ``offset``: one word, or string literals (one
    without escapes when ``converted``); with ``converted``, only a value that converts as the
    parse converts it. -1 for anything else."""
    token = _value_token(text, offset)
    if token is None:
        return -1
    kind, word, end = token
    if kind == STRING:
        if field.type != FieldDescriptor.TYPE_STRING:
            return -1
        following = _value_token(text, end)
        if converted:
            # The parse's own condition for a literal that is its own content.
            plain = "\\" not in word and len(word) > 1 and word[-1] == word[0]
            return end if plain and (following is None or following[0] != STRING) else -1
        while following is not None and following[0] == STRING:  # adjacent literals: one value
            end = following[2]
            following = _value_token(text, end)
        return end
    if field.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        return -1
    if converted:
        try:
            word_value(field, word)
        except (BadValue, ValueError):
            return -1
    return end


def _value_token(text: str, offset: int) -> tuple[int, str, int] | None:
    """The kind, text and end of the token at ``offset`` (after any comments) if it is a word or
    a string literal, as the tokenizer reads it."""
    while True:
        token = TOKEN.match(text, offset)
        if token is None:
            return None
        kind = token.lastindex
        if kind != COMMENT:
            break
        offset = token.end()
    if kind not in (IDENT, NUMBER, STRING):
        return None
    return kind, token.group(kind), token.end()
