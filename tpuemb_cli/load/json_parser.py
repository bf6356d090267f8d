"""protobuf's JSON mapping, with the position of every field.

The values are read by the standard library's ``json`` (in C, fast) and converted to the message
by the proto3 JSON rules protobuf's ``json_format.Parse`` applies (``mapping``, shared with YAML).
What is JSON's own is here: its syntax errors, keys given twice in one object (``json.loads``
keeps the last silently), and where in the text each key and element lies.

Positions cost a second, pure-Python scan of the text, so they are found only when a finding
needs one (:meth:`SourceMap.lazy`).
"""

from __future__ import annotations

import contextlib
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


class _Duplicates:
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
    duplicates = _Duplicates()
    try:
        try:
            value = json.loads(text, object_pairs_hook=duplicates)
        except json.JSONDecodeError:
            raise
        except ValueError:
            # An integer longer than Python reads: read again, each such one as OVERSIZED, and
            # report them where they are written.
            duplicates = _Duplicates()
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
        result.problems.append(
            LoadProblem("invalid-syntax", "JSON nests too deeply to read", fatal=True)
        )
        return result
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        found = _lone_surrogates(text)
        if found:
            result.problems.extend(found)
            value = _repaired(value)
    result.value = value
    convert_value(value, message, result, max_depth, hints=hints)
    if duplicates.found:
        scanner = _Scanner(text, {})
        scanner.scan()
        for _, key, span in scanner.duplicates:
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


# -- positions ---------------------------------------------------------------------------------
_JSON_TOKEN = re.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\],:])|(-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)|true|'
    r"false|null|NaN|-?Infinity))",
    re.DOTALL,
)


def json_spans(text: str, value: Any, descriptor: Any) -> dict[FieldPath, Span]:
    """Spans of every field of a JSON input that parsed, keyed by field path.

    A field's span runs from its key to the end of its value; a list element's is the element.
    """
    raw: RawSpans = {}
    _Scanner(text, raw).scan()
    return map_spans(value, descriptor, raw)


class _Scanner:
    """Walks JSON text that ``json.loads`` accepted, recording where each key's pair lies."""

    def __init__(self, text: str, raw: RawSpans) -> None:
        self.text = text
        self.raw = raw
        self.pos = 0
        # (object path, key, span of the key) of every key seen before in its object.
        self.duplicates: list[tuple[tuple[str | int, ...], str, Span]] = []

    def _token(self) -> tuple[int, str, int, int]:
        match = _JSON_TOKEN.match(self.text, self.pos)
        if match is None or match.lastindex is None:
            raise ValueError(f"unexpected character at {self.pos}")
        self.pos = match.end()
        kind = match.lastindex
        return kind, match.group(kind), match.start(kind), match.end()

    def scan(self) -> None:
        # Positions are a convenience: on a surprise, keep what was found.
        with contextlib.suppress(ValueError, RecursionError):
            self._value(())

    def _value(self, path: tuple[str | int, ...]) -> tuple[int, int]:
        kind, text, start, end = self._token()
        if kind == 2 and text == "{":
            while True:
                kind, key, key_start, _ = self._token()
                if kind == 2 and key == "}":
                    return start, self.pos
                if kind == 2 and key == ",":
                    continue
                self._token()  # the colon
                name = json.loads(key)
                if "\\u" in key:
                    name = limits.repaired(name)
                if path + (name,) in self.raw:
                    self.duplicates.append((path, name, (key_start, key_start + len(key))))
                _, value_end = self._value(path + (name,))
                self.raw.setdefault(path + (name,), (key_start, value_end))
        if kind == 2 and text == "[":
            index = 0
            while True:
                save = self.pos
                kind, item, _, _ = self._token()
                if kind == 2 and item == "]":
                    return start, self.pos
                if kind == 2 and item == ",":
                    continue
                self.pos = save
                element = self._value(path + (index,))
                self.raw[path + (index,)] = element
                index += 1
        return start, end
