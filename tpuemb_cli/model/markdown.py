"""GitHub-flavoured Markdown, as the reports write it for job summaries and pull-request
comments: every string from the input escaped, tables of whole rows, and a page that stays
within GitHub's limits.

GitHub refuses a comment body over 65,536 characters and a step summary over 1 MiB; a page is
cut at ``LIMIT`` bytes of UTF-8 (never more characters than bytes), so one output fits both.
What is cut is whole rows, never part of one, and the page ends by saying how many rows of each
kind it left out and how to see them all. The formatters and views both write with this module:
it sits below them, with the other words every layer writes (``words``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from tpuemb_cli.model.words import count, plural, printable

T = TypeVar("T")
LIMIT = 65_536  # bytes of a page: GitHub's largest comment body, in characters
MOST = 1_000  # characters of one string from the input shown in a cell or line, then "..."
# Room kept for the line that says what was left out (its nouns are few and short).
_FOOTER = 600
# A zero-width space after `@` and `#`: GitHub links `@user` (and notifies the user) and
# `#123` (and cross-references the issue) in the text it renders, so a table named `@org/team`
# must not reach it whole. The entity, not the character: the raw Markdown shows it is there.
_BREAK = "&#8203;"
_ESCAPES = str.maketrans(
    {
        # What Markdown acts on inside a line: code spans, emphasis, links, strikethrough,
        # GitHub's math (`$`), a table's column break; HTML as entities, so that `<script>`,
        # `<details>` or `<!--` is text.
        **{c: "\\" + c for c in "\\`*[]|~$"},
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "@": "@" + _BREAK,
        "#": "#" + _BREAK,
    }
)
# An underscore that can open or close emphasis: one not between two letters or digits (GFM
# reads `table_id` as a word, so the page need not write `table\_id`).
_FLANKING = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# What makes a line a list item, a quote, a heading's underline or a numbered item when it
# starts one (a paragraph of input text: a file's name).
_LINE_START = re.compile(r"([-+=]|\d+(?=[.)]))")


def inline(text: str, most: int = MOST) -> str:
    """``text`` from the input as Markdown that shows it as written, on one line: control
    characters escaped (``words.printable``: a newline is ``\\n``), Markdown and HTML escaped,
    mentions and issue references broken; cut to ``most`` characters with ``...``."""
    shown = printable(text)
    if len(shown) > most:
        shown = shown[: most - 3] + "..."
    return _FLANKING.sub(r"\\_", shown.translate(_ESCAPES))


def paragraph(text: str, most: int = MOST) -> str:
    """``inline(text)`` for a line of its own: a leading ``-``, ``1.`` or ``=`` is escaped too,
    and leading spaces dropped (four would make a code block)."""
    shown = inline(text.lstrip(), most)
    # `\-` for a dash, `1\.` for a number: the escape goes before the punctuation.
    mark = _LINE_START.match(shown)
    if mark is None:
        return shown
    at = 0 if shown[0] in "-+=" else mark.end()
    return shown[:at] + "\\" + shown[at:]


def row(cells: Iterable[str]) -> str:
    """A table row of cells already written as Markdown (``inline``, or tpuemb's own words)."""
    return "| " + " | ".join(cells) + " |"


def header(columns: Sequence[str], right: Sequence[int] = ()) -> list[str]:
    """A table's header and delimiter rows; the columns numbered in ``right`` right-aligned
    (figures)."""
    marks = ["---:" if index in right else "---" for index in range(len(columns))]
    return [row(columns), "|" + "|".join(marks) + "|"]


class Lazy(Sequence[str]):
    """Rows written when the page reads them: a report of 20,000 findings shows a few hundred,
    and writes no more."""

    def __init__(self, items: Sequence[T], write: Callable[[T], str]) -> None:
        self._items: Sequence[Any] = items
        self._write: Callable[[Any], str] = write

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self._write(item) for item in self._items[index]]
        return self._write(self._items[index])


@dataclass
class Rows:
    """A table that the page may cut: ``head`` (its heading and header lines) is written when
    its first row fits, then as many whole rows as fit; ``noun`` counts the rows left out
    (``finding``: ``12 findings``). A row may be several lines (a ``<details>`` block)."""

    noun: str
    head: list[str]
    rows: Sequence[str]
    tail: list[str] = field(default_factory=lambda: [""])
    many: str | None = None  # the noun's plural, when it is not noun + s


def _size(line: str) -> int:
    return len(line.encode("utf-8", "surrogatepass")) + 1  # and its newline


def page(parts: Sequence[str | Rows], see_all: str, limit: int = LIMIT) -> str:
    """The page's lines (a str is a line always written, a ``Rows`` a table that may be cut),
    within ``limit`` bytes. When rows were left out, the last line says how many of each kind
    and ``see_all``: how to see them all (``tpuemb check --format json``)."""
    fixed = sum(_size(part) for part in parts if isinstance(part, str))
    room = limit - fixed - _FOOTER
    out: list[str] = []
    left: dict[tuple[str, str | None], int] = {}
    full = False
    for part in parts:
        if isinstance(part, str):
            out.append(part)
            continue
        rows: list[str] = []
        if not full:
            cost = sum(map(_size, part.head)) + sum(map(_size, part.tail))
            for index in range(len(part.rows)):
                line = part.rows[index]
                if cost + _size(line) > room:
                    full = True
                    break
                cost += _size(line)
                rows.append(line)
            if rows:
                room -= cost
                out += [*part.head, *rows, *part.tail]
        shown = len(rows)
        if len(part.rows) > shown:
            key = (part.noun, part.many)
            left[key] = left.get(key, 0) + len(part.rows) - shown
    # A page whose own lines do not fit (a report of thousands of parts): whole lines cut.
    cut, total = 0, sum(map(_size, out))
    while out and total > limit - _FOOTER:
        total -= _size(out.pop())
        cut += 1
    if cut:
        left[("line", None)] = cut
    if left:
        said = ", ".join(plural(n, noun, many) for (noun, many), n in left.items())
        out += [
            "",
            f"_Left out to stay within GitHub's {count(limit)} characters: {said}. {see_all}_",
        ]
    return "\n".join(out) + "\n"
