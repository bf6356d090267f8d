"""``explain --memory --format markdown``: any model's ``MemoryReport``, and the sweep of one
document over chips and slices, as GitHub-flavoured Markdown for a job summary or a comment.

A report is its summary first (the ``summary`` every model's JSON document ends with: status,
used and HBM a unit, share, what the figure is made of, the stacks and their padding), then the
model's own table and words as the text view has them (``memory_text.verdict_lines``: no second
wording). Strings from the document are escaped (``model.markdown``), and the page keeps within
GitHub's limits by cutting whole rows. Like the other memory renderers it names no ecosystem.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tpuemb_cli.model.markdown import Lazy, Rows, header, inline, page, paragraph, row
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.memory_report import MemoryReport
from tpuemb_cli.model.memory_sweep import ChipSweep, SliceVerdict, Sweep
from tpuemb_cli.model.words import count, plural
from tpuemb_cli.views.memory_text import VERDICT_WORDS, chip_heading, runs, span, verdict_lines

# A status as a word, after a mark for the eye (the word is the JSON's, so it reads back).
MARKS = {
    "fits": "✅",
    "near": "⚠️",
    "unknown": "❔",
    "not-sized": "➖",
    "does-not-fit": "❌",
    "cannot-run": "⛔",
}
AFTER = 3  # rows of slices shown after the smallest that fits
SEE_ALL = "`tpuemb explain --memory --format json` lists them all."


def status(word: str) -> str:
    return f"{MARKS.get(word, '')} {word}".strip()


def share(value: float | None) -> str:
    """A share as the text view writes it: ``3.2%``."""
    return "" if value is None else f"{value:.1%}"


def _size(value: int | None) -> str:
    return "" if value is None else size(value)


def _count(value: int | None) -> str:
    return "" if value is None else count(value)


def _part(part: int | None, whole: int | None) -> float | None:
    return part / whole if part is not None and whole else None


def _unit(unit: str | None) -> str:
    return f" a {inline(unit)}" if unit else ""


def _summary(summary: dict[str, Any], level: str) -> list[str | Rows]:
    """The summary's table, then what the figure is made of and the stacks with their padding
    (each only when the model says it)."""
    unit = _unit(summary["unit"])
    columns = ["status", "accelerator", "chip", f"used{unit}", f"HBM{unit}", "share"]
    cells = [
        status(summary["status"]),
        inline(summary["accelerator"] or ""),
        inline(summary["chip"] or ""),
        _size(summary["used_bytes"]),
        _size(summary["hbm_bytes"]),
        share(summary["share"]),
    ]
    parts: list[str | Rows] = [*header(columns, right=(3, 4, 5)), row(cells), ""]
    # Why it cannot run, or is not this slice's figures: said with the verdict, at the end.
    if summary["not_sized"]:
        parts += [f"**Not sized:** {inline(summary['not_sized'])}", ""]
    used = summary["used_bytes"]
    if summary["breakdown"]:
        columns = ["part", "size", "share"]
        head = [f"{level}# Used{unit}, by part", "", *header(columns, right=(1, 2))]
        rows = [
            row([inline(part["label"]), _size(part["bytes"]), share(_part(part["bytes"], used))])
            for part in summary["breakdown"]
        ]
        parts.append(Rows("part", head, rows))
    if summary["stacks"]:
        columns = ["stack", "tables", "rows", "padding rows", "size", "padding", "padding share"]
        head = [
            f"{level}# Stacks over the slice, and their padding",
            "",
            *header(columns, right=(2, 3, 4, 5, 6)),
        ]
        rows = [
            row(
                [
                    inline(stack["name"]),
                    inline(", ".join(stack["tables"])),
                    _count(stack["rows"]),
                    _count(stack["padding_rows"]),
                    _size(stack["bytes"]),
                    _size(stack["padding_bytes"]),
                    share(_part(stack["padding_bytes"], stack["bytes"])),
                ]
            )
            for stack in summary["stacks"]
        ]
        parts.append(Rows("stack", head, rows))
    return parts


def _bullets(lines: Sequence[str]) -> list[str]:
    """The report's words as a list; an indented line (advice under its verdict) nested."""
    return [("  - " if line.startswith(" ") else "- ") + paragraph(line) for line in lines if line]


def _report(report: MemoryReport, level: str) -> list[str | Rows]:
    """A report's parts of the page, its headings at ``level`` (``##``)."""
    if report.prose is not None:
        return [*(paragraph(line) for line in report.prose.splitlines() if line), ""]
    parts: list[str | Rows] = [paragraph(report.heading), ""]
    if report.parts:
        parts += [f"**Status:** {status(report.status)}", ""]
        if report.cannot_run:  # why, as the text says it (a part that cannot run: the whole)
            parts += [paragraph(line) for line in verdict_lines(report)] + [""]
        for said, part in report.parts:
            # The part's first line names it (``layer x``): its heading.
            named = [line for line in said if line] or [part.file]
            parts += [f"{level}# {inline(named[0])}", ""]
            parts += [line for words in named[1:] for line in (paragraph(words), "")]
            parts += _report(part, level + "#")
        return parts
    if report.engine_line:
        parts += [paragraph(report.engine_line), ""]
    parts += _summary(report.summary(), level)
    if report.columns:
        columns = [inline(column) for column in report.columns]
        shares = report.shares
        if shares is not None:
            columns.append("share")

        def written(index: int) -> str:
            shown = [share(shares[index])] if shares is not None else []
            return row([*map(inline, report.rows[index]), *shown])

        rows = Lazy(range(len(report.rows)), written)
        head = [f"{level}# {inline(report.columns[0]).capitalize()}s", "", *header(columns)]
        parts.append(Rows(report.columns[0], head, rows))
    return [*parts, *_bullets([*report.notes, *report.verdict, *verdict_lines(report)]), ""]


def render_markdown(report: MemoryReport) -> str:
    """The report as ``explain --memory --format markdown`` writes it."""
    return page([f"## {inline(report.file)}", "", *_report(report, "##")], SEE_ALL)


def _tally(verdicts: Sequence[SliceVerdict]) -> str:
    statuses: dict[str, int] = {}
    for verdict in verdicts:
        statuses[verdict.status] = statuses.get(verdict.status, 0) + 1
    return ", ".join(
        f"{VERDICT_WORDS.get(word, word)} ({count(n)})" for word, n in statuses.items()
    )


def _run_row(run: list[SliceVerdict]) -> str:
    """A row of consecutive slices with the same verdict and figures (``memory_text.runs``)."""
    name, chips = span(run)
    said = run[0].document()
    mark = " \\*" if run[0].report.mismatch else ""
    return row(
        [
            inline(name),
            "" if run[0].chips is None else chips,
            status(said["status"]) + mark,
            _size(said["used_bytes"]),
            _size(said["hbm_bytes"]),
            share(said["share"]),
        ]
    )


def _chip(chip: ChipSweep) -> list[str | Rows]:
    """A chip's section: its verdict in the text view's words, then its slices (consecutive
    ones with the same figures in one row) up to the smallest that fits and ``AFTER`` rows
    more, what the table leaves out, and why slices cannot run or are another layout's."""
    heading = chip_heading(chip)
    parts: list[str | Rows] = [f"### {inline(chip.chip)}", "", paragraph(heading), ""]
    if chip.cannot_run or heading.startswith(f"TPU {chip.chip}: not sized"):
        return parts
    units = {verdict.report.summary()["unit"] for verdict in chip.slices} - {None}
    unit = _unit(units.pop()) if len(units) == 1 else ""
    columns = ["slices", "chips", "status", f"used{unit}", f"HBM{unit}", "share"]
    grouped = runs(chip.slices)
    smallest = chip.smallest_fit
    shown = grouped
    if smallest is not None:
        at = next(index for index, run in enumerate(grouped) if smallest in run)
        shown = grouped[: at + 1 + AFTER]
    table = Lazy(shown, _run_row)
    parts.append(
        Rows("row of slices", header(columns, right=(1, 3, 4, 5)), table, many="rows of slices")
    )
    rest = [verdict for run in grouped[len(shown) :] for verdict in run]
    if rest:
        between = f"{inline(rest[0].accelerator)} to {inline(rest[-1].accelerator)}"
        parts += [f"{plural(len(rest), 'larger slice')} ({between}): {_tally(rest)}.", ""]
    # One example of each, as the text says it: each slice's words differ (its own size).
    reason = next((v.report.cannot_run for v in chip.slices if v.report.cannot_run), "")
    mismatch = next((v.report.mismatch for v in chip.slices if v.report.mismatch), "")
    if reason:
        parts.append(f"- {status('cannot-run')}, e.g.: {inline(reason)}")
    if mismatch:
        parts.append(f"- \\* not the slice it is laid out for, e.g.: {inline(mismatch)}")
    return [*parts, ""] if reason or mismatch else parts


def render_sweep_markdown(sweep: Sweep) -> str:
    """Which TPU the document fits: each chip's smallest slice that fits first, then each
    chip's slices."""
    columns = ["chip", "smallest slice that fits", "chips", "used", "HBM", "share"]
    overview = []
    for chip in sweep.chips:
        smallest = chip.smallest_fit
        if smallest is None:
            said = status("cannot-run") if chip.cannot_run else "none"
            overview.append(row([inline(chip.chip), said, "", "", "", ""]))
            continue
        summary = smallest.report.summary()
        unit = _unit(summary["unit"])
        overview.append(
            row(
                [
                    inline(chip.chip),
                    inline(smallest.accelerator),
                    "" if smallest.chips is None else count(smallest.chips),
                    _size(summary["used_bytes"]) + (unit if summary["used_bytes"] else ""),
                    _size(summary["hbm_bytes"]) + (unit if summary["hbm_bytes"] else ""),
                    share(summary["share"]),
                ]
            )
        )
    parts: list[str | Rows] = [f"## Which TPU fits {inline(sweep.file)}", ""]
    parts += [*header(columns, right=(2, 3, 4, 5)), *overview, ""]
    for chip in sweep.chips:
        parts += _chip(chip)
    return page(parts, SEE_ALL)
