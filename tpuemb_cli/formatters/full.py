"""The human format, in the style of ruff: each finding with the lines around it, a caret under
the exact span, the field path and a ``help:`` line. The default on a terminal.

    TE407 [error] table-id-out-of-range: feature 1 has `table_id: 2`, but the config has 2 ...
      --> configs/model.pbtxt:32:42
       |
    31 | # Off by one: there is no table 2.
    32 | feature_descriptor { name: "query_terms" table_id: 2 input_shape: 128 }
       |                                          ^^^^^^^^^^^
    33 |
       |
       = field: feature_descriptor[1].table_id
       = help: point the feature at the index of its table in `table_descriptor`, counting from 0

A long line (minified JSON is one line) is shown in a window of ``WIDTH`` characters around the
finding's column, with ``...`` where it is cut, as ruff and rustc do: the output of a finding
does not grow with its line. Config strings are shown with control characters escaped
(``style.printable``).
"""

from __future__ import annotations

from tpuemb_cli.formatters import Report, summary, transition
from tpuemb_cli.formatters.style import ESCAPES, paint, printable
from tpuemb_cli.load.source import SourceMap
from tpuemb_cli.model.findings import Finding, Position, Severity

CONTEXT = 1  # lines shown before and after the finding
WIDTH = 120  # characters of a line shown at most
LEAD = 40  # of which before the finding's column, when the line is cut
ELLIPSIS = "..."
# In excerpts a tab is one space (carets must line up) and the rest is escaped, as in messages.
_SHOWN = {**ESCAPES, 0x09: " "}


def _shown(source: str) -> str:
    return source.translate(_SHOWN)


class Lines:
    """A file's lines for excerpts: the line index is built once per file (``SourceMap``'s), and
    a finding reads only the window it shows, never its whole line, so that a thousand findings
    on one long line cost a thousand windows, not a thousand copies of the line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._map = SourceMap(text)
        self.count = self._map.line_count
        self._extents: dict[int, tuple[int, int]] = {}

    def bounds(self, number: int) -> tuple[int, int]:
        """Where line ``number`` starts and ends (a CR before its newline left out)."""
        start, end = self._map.line_span(number)
        if end > start and self.text[end - 1] == "\r":
            end -= 1
        return start, end

    def extent(self, number: int) -> tuple[int, int]:
        """The columns (0-based, from..to) of the line's text without the spaces around it;
        read once per line, however many findings it has."""
        found = self._extents.get(number)
        if found is None:
            start, end = self.bounds(number)
            line = self.text[start:end]
            stripped = line.lstrip()
            first = len(line) - len(stripped)
            found = self._extents[number] = (first, first + len(stripped.rstrip()))
        return found


def _window(length: int, start: int) -> tuple[int, int]:
    """The columns ``[low, high)`` shown of a finding's line of ``length`` and of the lines
    around it, for a finding at ``start``: all of a short line, else ``LEAD`` before ``start``."""
    low = max(0, min(start - LEAD, length - WIDTH))
    return low, low + WIDTH


def _clipped(lines: Lines, number: int, low: int, high: int) -> str:
    """Columns ``[low, high)`` of line ``number`` as shown, with ``...`` where the line goes on;
    the start is padded to the same width when nothing is cut there, so that every line of an
    excerpt lines up."""
    start, end = lines.bounds(number)
    first, last = lines.extent(number)
    lead = (ELLIPSIS if first < low else " " * len(ELLIPSIS)) if low else ""
    tail = ELLIPSIS if last > high else ""
    return lead + _shown(lines.text[start + low : min(start + high, end)]) + tail


def _underline(
    lines: Lines, number: int, window: tuple[int, int], start: int, end: int | None
) -> tuple[int, int]:
    """Where the carets under columns ``[start, end)`` of line ``number`` begin, and how many
    (at least one); ``end`` None: to the end of the line. Escapes widen what they stand for;
    columns past the end of the line count one each."""
    low, high = window
    line_start, line_end = lines.bounds(number)
    length = line_end - line_start

    def width(a: int, b: int) -> int:
        inside = lines.text[line_start + min(a, length) : line_start + min(b, length)]
        return len(_shown(inside)) + max(b - max(a, length), 0)

    end = max(min(length if end is None else end, high), start)
    return (len(ELLIPSIS) if low else 0) + width(low, start), max(width(start, end), 1)


def _snippet(finding: Finding, lines: Lines, color: bool) -> list[str]:
    assert finding.position is not None
    return excerpt(finding.position, finding.severity, lines, color)


def excerpt(position: Position, severity: Severity, lines: Lines, color: bool) -> list[str]:
    """The lines around ``position`` with carets under it, in the colour of ``severity``."""
    # The finding's first line with one line of context each side; a span over several lines
    # (a whole table) is underlined to the end of its first line.
    first = max(position.line - CONTEXT, 1)
    last = min(position.line + CONTEXT, lines.count)
    width = len(str(last))
    gutter = paint(" " * width + " |", None, color, dim=True)
    start = position.column - 1
    low, high = 0, WIDTH
    if first <= position.line <= last:
        line_start, line_end = lines.bounds(position.line)
        low, high = _window(line_end - line_start, start)
    out = [gutter]
    for number in range(first, last + 1):
        shown = _clipped(lines, number, low, high)
        out.append(paint(f"{number:>{width}} |", None, color, dim=True) + f" {shown}".rstrip())
        if number == position.line:
            end = position.end_column - 1 if position.end_line == position.line else None
            offset, carets = _underline(lines, number, (low, high), start, end)
            out.append(
                gutter + " " * (offset + 1) + paint("^" * carets, severity, color, bold=True)
            )
    out.append(gutter)
    return out


def format_finding(
    finding: Finding, lines: Lines | None, color: bool, fixable: bool = False
) -> list[str]:
    """The lines of one finding; ``lines`` is its file's text, indexed once for all findings.
    ``fixable``: this run's ``--fix`` would fix it (``[*]`` after the code, as in ruff)."""
    mark = " [*]" if fixable else ""
    code = paint(f"{finding.rule}{mark} [{finding.severity}]", finding.severity, color, bold=True)
    out = [f"{code} {finding.name}: {printable(finding.message)}"]
    arrow = paint("-->", None, color, dim=True)
    file = printable(finding.file)
    if finding.position is None:
        out.append(f"  {arrow} {file}")
    else:
        out.append(f"  {arrow} {file}:{finding.position.line}:{finding.position.column}")
        if lines is not None:
            out.extend("  " + line for line in _snippet(finding, lines, color))
    if finding.field:
        out.append(f"  = field: {printable(finding.field)}")
    if finding.change is not None:
        if finding.change.table is not None:
            out.append(f"  = table: {printable(finding.change.table)}")
        if transition(finding):
            out.append(f"  = change: {printable(transition(finding))}")
    if finding.fix:
        out.append(f"  = help: {printable(finding.fix)}")
    return out


def format_report(report: Report, color: bool) -> str:
    lines: list[str] = []
    indexed: dict[str, Lines | None] = {}
    for finding in report.findings:
        if finding.file not in indexed:
            text = report.sources.get(finding.file)
            indexed[finding.file] = Lines(text) if text is not None else None
        lines.extend(
            format_finding(finding, indexed[finding.file], color, report.fixable_now(finding))
        )
        lines.append("")
    if not report.quiet:
        lines.append(summary(report))
    return "\n".join(lines) + "\n" if lines else ""
