"""protobuf's JSON mapping, with the position of every field.

The values are read by the standard library's ``json`` (in C, fast) and converted to the message
by the proto3 JSON rules protobuf's ``json_format.Parse`` applies (``mapping``, shared with YAML).
What is JSON's own is here: its syntax errors, keys given twice in one object (``json.loads``
keeps the last silently), and where in the text each key and element lies.

Positions cost a second, pure-Python scan of the text, so they are found only when a finding
needs one (:meth:`SourceMap.lazy`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from google.protobuf.message import Message

from tpuemb_cli.load import limits
from tpuemb_cli.load.mapping import (
    ParsedMapping,
    PlainValueHints,
    RawSpans,
    convert_value,
    map_spans,
)
from tpuemb_cli.load.problems import LoadProblem, lone_surrogate, number_too_long
from tpuemb_cli.load.source import Span
from tpuemb_cli.model.paths import FieldPath


class Duplicates:
    """object_pairs_hook that keeps the last value, as json.loads does, and notes duplicate keys."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                self.found.append(key)
            result[key] = value
        return result


def parse_json(
    text: str, message: Message, max_depth: int = 100, hints: PlainValueHints | None = None
) -> ParsedMapping:
    """Parses ``text`` into ``message``; never raises on bad input. ``hints``: see
    ``PlainValueHints``."""
    result = ParsedMapping()
    duplicates = Duplicates()
    try:
        try:
            value = json.loads(text, object_pairs_hook=duplicates)
        except json.JSONDecodeError:
            raise
        except ValueError:
            # An integer longer than Python reads: read again, each such one as OVERSIZED, and
            # report them where they are written.
            duplicates = Duplicates()
            value = json.loads(text, object_pairs_hook=duplicates, parse_int=_integer)
            result.problems.extend(_too_long_numbers(text))
    except json.JSONDecodeError as error:
        result.problems.append(
            LoadProblem(
                "invalid-syntax",
                f"not valid JSON: {error.msg}",
                span=(error.pos, error.pos + 1),
                fatal=True,
            )
        )
        return result
    except RecursionError:
        result.problems.append(too_deep(text, limits.max_nesting(max_depth)))
        return result
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        found = _lone_surrogates(text)
        if found:
            result.problems.extend(found)
            value = _repaired(value)
    result.value = value
    convert_value(value, message, result, max_depth, hints=hints)
    if duplicates.found:
        for _, key, span in _scan(text)[1]:
            result.problems.append(
                LoadProblem(
                    "duplicate-field",
                    f"the key `{key}` appears more than once in one object; protobuf rejects that",
                    span=span,
                    fix=f"keep one `{key}`",
                )
            )
    return result


# -- what json.loads reads but protobuf does not (see ``limits``) -------------------------------
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_STRING_OR_NUMBER = re.compile(r'("(?:[^"\\]|\\.)*")|-?\d+(\.\d*)?([eE][-+]?\d+)?', re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _integer(text: str) -> int | object:
    return limits.OVERSIZED if limits.too_long(text) else int(text)


def _too_long_numbers(text: str) -> list[LoadProblem]:
    """A problem at each integer of ``text`` (JSON that parses) too long to read."""
    return [
        number_too_long(match.group(), span=match.span())
        for match in _STRING_OR_NUMBER.finditer(text)
        if match.lastindex is None and limits.too_long(match.group())
    ]


def _lone_surrogates(text: str) -> list[LoadProblem]:
    """A problem at each string of ``text`` (JSON that parses) whose escapes leave a lone
    surrogate (a pair, ``\\ud83d\\ude00``, is one character to JSON, and fine)."""
    found = []
    for match in _STRING.finditer(text):
        token = match.group()
        if _SURROGATE_ESCAPE.search(token):
            escape = limits.lone_surrogate(json.loads(token))
            if escape is not None:
                found.append(lone_surrogate(token, escape, match.span()))
    return found


def _repaired(value: Any) -> Any:
    """``value`` with each string (keys too) ``limits.repaired``; without recursion, as JSON
    nests as deep as json.loads reads."""
    fix = limits.repaired
    root = [value]
    stack: list[list[Any] | dict[str, Any]] = [root]
    while stack:
        container = stack.pop()
        if isinstance(container, list):
            for index, item in enumerate(container):
                if isinstance(item, str):
                    container[index] = fix(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
        else:
            items = []
            for key, item in container.items():
                if isinstance(item, str):
                    item = fix(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
                items.append((fix(key) if limits.has_surrogates(key) else key, item))
            container.clear()
            container.update(items)
    return root[0]


def too_deep(text: str, limit: int) -> LoadProblem:
    """The problem of JSON that nests deeper than ``json.loads`` reads: at the bracket that opens
    level ``limit + 1`` (as YAML's is), found by counting brackets up to it -- the text before it
    is JSON that ``json.loads`` read. Nothing is built per level: a position found through the
    field paths (``_scan``) costs the depth squared, minutes and gigabytes for a 400 KB file."""
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.lastindex
        if token in (_OPEN_OBJECT, _OPEN_ARRAY):
            depth += 1
            if depth > limit:
                return LoadProblem(
                    "invalid-syntax",
                    f"the JSON nests deeper than {limit} levels",
                    span=match.span(),
                    fix="flatten the document",
                    fatal=True,
                )
        elif token == _CLOSE:
            depth -= 1
    # Not reached for what json.loads refused by its depth; said without a place, if it is.
    return LoadProblem("invalid-syntax", "the JSON nests too deeply to read", fatal=True)


# -- positions ---------------------------------------------------------------------------------
# The tokens that matter for positions, in one pass of the regular-expression engine (in C): a
# key (a string and its colon: group 1 the string), `{` (group 2), `[` (group 3), `}` or `]`
# (group 4), or a value: a string (the unrolled form, which does not try an alternative per
# character) or a bare word (a number, true, false, null, NaN, Infinity). Commas and whitespace
# are what no token matches: a list counts its elements.
_STRING_TOKEN = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKENS = re.compile(
    rf"({_STRING_TOKEN})[ \t\r\n]*:|(\{{)|(\[)|([}}\]])|{_STRING_TOKEN}|[^\s{{}}\[\],:\"]+"
)
_KEY, _OPEN_OBJECT, _OPEN_ARRAY, _CLOSE = 1, 2, 3, 4

_OBJECT, _ARRAY = 1, 2
Duplicate = tuple[tuple[str | int, ...], str, Span]


def json_spans(text: str, value: Any, descriptor: Any) -> dict[FieldPath, Span]:
    """Spans of every field of a JSON input that parsed, keyed by field path.

    A field's span runs from its key to the end of its value; a list element's is the element.
    """
    raw, _ = _scan(text)
    return map_spans(value, descriptor, raw)


def duplicate_keys(text: str) -> list[Duplicate]:
    """The keys written again in their object, in JSON text that ``json.loads`` accepted: the
    object's path, the key, and the span of its second (or later) writing."""
    return _scan(text)[1]


def value_spans(text: str) -> RawSpans:
    """Where each key's pair and each list element lies in JSON text that ``json.loads``
    accepted, keyed by the data's own keys and indexes (for a document that is no protobuf
    message in JSON, such as a Keras model's config.json)."""
    return _scan(text)[0]


def _key(token: str) -> str:
    """A key's name from its quoted token: escapes decoded, a lone surrogate repaired as the
    value's keys are."""
    if "\\" not in token:
        return token[1:-1]
    name: str = json.loads(token)
    return limits.repaired(name) if "\\u" in token else name


def _scan(text: str) -> tuple[RawSpans, list[Duplicate]]:
    """Where each key's pair and each list element lies in JSON text that ``json.loads``
    accepted, and the keys seen before in their object (object path, key, span of the key).

    One loop over the tokens with an explicit stack, not a call per value: a recursive descent
    spent most of a baseline run's time in Python calls, and nested as deep as the text does.
    The first of a duplicated key's pairs keeps its span, as the first error points there.
    """
    raw: RawSpans = {}
    duplicates: list[Duplicate] = []
    # The container being read: its kind (0 at the top), its path, where it starts; in an
    # object the current key's path and start, in a list the current element's index.
    kind, start = 0, 0
    path: tuple[str | int, ...] = ()
    key_path: tuple[str | int, ...] = ()
    key_start = index = 0
    stack: list[tuple[int, tuple[str | int, ...], int, tuple[str | int, ...], int, int]] = []
    for match in _TOKENS.finditer(text):
        token = match.lastindex
        if token == _KEY:
            key_start = match.start()
            name = _key(match.group(1))
            key_path = path + (name,)
            if key_path in raw:
                duplicates.append((path, name, match.span(1)))
            continue
        if token in (_OPEN_OBJECT, _OPEN_ARRAY):
            stack.append((kind, path, start, key_path, key_start, index))
            if kind == _OBJECT:
                path = key_path
            elif kind == _ARRAY:
                path = path + (index,)
            kind, start, index = (_OBJECT if token == _OPEN_OBJECT else _ARRAY), match.start(), 0
            continue
        if token == _CLOSE:
            # The container ends: it is the value that ends here, in the one around it.
            value_start = start
            kind, path, start, key_path, key_start, index = stack.pop()
        else:
            value_start = match.start()
        if kind == _OBJECT:
            raw.setdefault(key_path, (key_start, match.end()))
        elif kind == _ARRAY:
            raw[path + (index,)] = (value_start, match.end())
            index += 1
    return raw, duplicates
