"""Where fields sit in the source: field path -> character span, and offset -> line:column."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from functools import cache

from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.paths import FieldPath

Span = tuple[int, int]  # [start, end) character offsets into the decoded text
Builder = Callable[[frozenset[FieldPath] | None], dict[FieldPath, Span]]
_NEWLINE = re.compile("\n")
_BOM = b"\xef\xbb\xbf"


def utf8(data: bytes, errors: str = "strict") -> str:
    """``data`` decoded as UTF-8 without a leading byte-order mark: ``data.decode("utf-8-sig")``,
    whose codec is a module of its own to import (0.4M instructions of a check's start-up). A
    ``UnicodeDecodeError`` says where in ``data`` -- the mark counted -- the bad byte is."""
    if not data.startswith(_BOM):
        return data.decode("utf-8", errors)
    try:
        return data[len(_BOM) :].decode("utf-8", errors)
    except UnicodeDecodeError as error:
        raise UnicodeDecodeError(
            "utf-8", data, error.start + len(_BOM), error.end + len(_BOM), error.reason
        ) from None


@cache
def _bisect_right() -> Callable[..., int]:
    # Imported when first asked: bisect loads a shared library, which a file without findings
    # never needs.
    from bisect import bisect_right

    return bisect_right


class SourceMap:
    """Spans of fields in one text input, keyed by field path.

    A finding on a field that is absent (a learning rate that was never set) points at the nearest
    enclosing field that is present, and at the start of the file for the root.
    """

    def __init__(self, text: str, spans: dict[FieldPath, Span] | None = None) -> None:
        self.text = text
        self.spans: dict[FieldPath, Span] = spans if spans is not None else {}
        self._line_starts: list[int] | None = None
        self._builder: Builder | None = None
        # After ``locate``: the paths (with their ancestors) whose spans were looked for.
        self._located: frozenset[FieldPath] | None = None
        self._partial = False

    @classmethod
    def lazy(cls, text: str, builder: Builder, partial: bool = False) -> SourceMap:
        """A map whose spans are computed on first use, only when there is a finding.

        ``builder(None)`` returns the span of every field; with ``partial``, ``builder(wanted)``
        returns the spans of the paths in ``wanted`` only.
        """
        source_map = cls(text, {})
        source_map._builder = builder
        source_map._partial = partial
        return source_map

    def locate(self, paths: Collection[FieldPath]) -> None:
        """Looks for the spans of ``paths`` (and their ancestors) before they are asked for, so
        that a lazy map of a large file keeps a few spans, not one per field."""
        if self._builder is None or not paths:
            return
        if not self._partial:
            self._ensure_built()
            return
        wanted = set(self._located or ())
        for path in paths:
            wanted.update(path[:cut] for cut in range(len(path) + 1))
        self._located = frozenset(wanted)
        self.spans = self._builder(self._located)

    def _ensure_built(self, path: FieldPath | None = None) -> None:
        if self._builder is None:
            return
        if path is not None and self._located is not None and path in self._located:
            return
        builder, self._builder, self._located = self._builder, None, None
        self.spans = builder(None)

    def span(self, path: FieldPath) -> Span | None:
        """The span of the field at ``path``, or of its nearest present ancestor."""
        self._ensure_built(path)
        for cut in range(len(path), 0, -1):
            found = self.spans.get(path[:cut])
            if found is not None:
                return found
        return None

    def exact_span(self, path: FieldPath) -> Span | None:
        self._ensure_built(path)
        return self.spans.get(path)

    def _starts(self) -> list[int]:
        """Where each line starts: built once, on first use, for every question about lines."""
        if self._line_starts is None:
            # One regex scan, not a find() call per line: a diff that places changes in a large
            # file asks first of all.
            self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(self.text))]
        return self._line_starts

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of a character offset."""
        starts = self._starts()
        line = _bisect_right()(starts, offset) - 1
        return line + 1, offset - starts[line] + 1

    @property
    def line_count(self) -> int:
        """How many lines the text has; a final newline ends the last line, it starts none."""
        return len(self._starts()) - (not self.text or self.text.endswith("\n"))

    def line_span(self, number: int) -> Span:
        """Where line ``number`` (1-based) starts and ends, its newline not included."""
        starts = self._starts()
        end = starts[number] - 1 if number < len(starts) else len(self.text)
        return starts[number - 1], end

    def position_of_span(self, span: Span) -> Position:
        # As two line_col calls, with one search when the span ends on its first line (most
        # do): a diff places thousands of changes.
        starts = self._starts()
        bisect_right = _bisect_right()
        start, end = span[0], max(span[1], span[0])
        line = bisect_right(starts, start) - 1
        end_line = line
        if line + 1 < len(starts) and starts[line + 1] <= end:
            end_line = bisect_right(starts, end, line + 1) - 1
        return Position(
            line + 1, start - starts[line] + 1, end_line + 1, end - starts[end_line] + 1
        )

    def position(self, path: FieldPath) -> Position:
        found = self.span(path)
        if found is None:
            return Position(1, 1, 1, 1)
        return self.position_of_span(found)
