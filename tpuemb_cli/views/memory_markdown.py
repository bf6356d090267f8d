"""``explain --memory --format markdown``: any model's ``MemoryReport``, and the sweep of one
document over chips and slices, as GitHub-flavoured Markdown for a job summary or a comment.

A report is its summary first (the ``summary`` every model's JSON document ends with: status,
used and HBM a unit, share, what the figure is made of, the stacks and their padding), then the
model's own table and words as the text view has them (``memory_text.chip_lines``: no second
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
from tpuemb_cli.views.memory_text import chip_lines

# A status as a word, after a mark for the eye (the word is the JSON's, so it reads back).
MARKS = {
    "fits": "✅",
    "near": "⚠️",
    "unknown": "❔",
    "no-chip": "➖",
    "does-not-fit": "❌",
    "cannot-run": "⛔",
}
# How a sentence counts slices of each status: "38 fit, 2 do not fit".
SAID = {
    "fits": "fit",
    "near": "fit with less than 20% left",
    "unknown": "are against a chip whose HBM is not known",
    "no-chip": "were not sized",
    "does-not-fit": "do not fit",
    "cannot-run": "cannot run it",
}
AFTER = 3  # slices shown after the smallest that fits
SEE_ALL = "`tpuemb explain --memory --format json` lists them all."


def status(word: str) -> str:
    return f"{MARKS.get(word, '')} {word}".strip()


def share(value: float | None) -> str:
    """A share as the text view writes it: ``3.2%``."""
    return "" if value is None else f"{value:.1%}"


def _size(value: int | None) -> str:
    return "" if value is None else size(value)


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
    if summary["cannot_run"]:
        parts += [f"**Cannot run:** {inline(summary['cannot_run'])}", ""]
    if summary["mismatch"]:
        parts += [f"**Not this slice's figures:** {inline(summary['mismatch'])}", ""]
    used = summary["used_bytes"]
    if summary["breakdown"]:
        columns = ["part", "size", "share"]
        head = [f"{level}# Used{unit}, by part", "", *header(columns, right=(1, 2))]
        rows = [
            row([inline(part["label"]), size(part["bytes"]), share(part["bytes"] / used)])
            for part in summary["breakdown"]
            if used
        ]
        parts.append(Rows("part", head, rows))
    if summary["stacks"]:
        columns = ["stack", "tables", "rows", "padding rows", "size", "padding", "padding share"]
        head = [f"{level}# Stacks", "", *header(columns, right=(2, 3, 4, 5, 6))]
        rows = [
            row(
                [
                    inline(stack["name"]),
                    inline(", ".join(stack["tables"])),
                    count(stack["rows"]),
                    count(stack["padding_rows"]),
                    size(stack["bytes"]),
                    size(stack["padding_bytes"]),
                    share(stack["padding_bytes"] / stack["bytes"] if stack["bytes"] else None),
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
        for said, part in report.parts:
            # The part's first line names it (``layer x``): its heading.
            named = [line for line in said if line] or [part.file]
            parts += [f"{level}# {inline(named[0])}", ""]
            parts += [line for said in named[1:] for line in (paragraph(said), "")]
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
    words = [*report.notes, *report.verdict]
    if report.chip is not None:
        words += chip_lines(report.chip)
    return [*parts, *_bullets(words), ""]


def render_markdown(report: MemoryReport) -> str:
    """The report as ``explain --memory --format markdown`` writes it."""
    return page([f"## {inline(report.file)}", "", *_report(report, "##")], SEE_ALL)


def _shown(chip: ChipSweep) -> tuple[SliceVerdict, ...]:
    """The slices a chip's table shows: every one up to the smallest that fits and ``AFTER``
    more; all when none fits (the page cuts what does not fit)."""
    smallest = chip.smallest_fit
    if smallest is None:
        return chip.slices
    return chip.slices[: chip.slices.index(smallest) + 1 + AFTER]


def _tally(verdicts: Sequence[SliceVerdict]) -> str:
    statuses: dict[str, int] = {}
    for verdict in verdicts:
        statuses[verdict.status] = statuses.get(verdict.status, 0) + 1
    return ", ".join(f"{count(n)} {SAID.get(word, word)}" for word, n in statuses.items())


def _slice_cells(verdict: SliceVerdict) -> list[str]:
    said = verdict.document()
    return [
        status(said["status"]),
        _size(said["used_bytes"]),
        _size(said["hbm_bytes"]),
        share(said["share"]),
    ]


def _chip(chip: ChipSweep) -> list[str | Rows]:
    """A chip's section: its verdict in a sentence, its slices' table, what the table leaves
    out, and why slices cannot run or are another layout's figures."""
    name = inline(chip.chip)
    smallest = chip.smallest_fit
    parts: list[str | Rows] = [f"### {name}", ""]
    if chip.cannot_run:
        parts += [f"**Cannot run:** {inline(chip.cannot_run)}", ""]
    elif smallest is not None:
        chips = f" ({plural(smallest.chips, 'chip')})" if smallest.chips is not None else ""
        parts += [f"Smallest slice that fits: **{inline(smallest.accelerator)}**{chips}", ""]
    else:
        parts += [f"No {name} slice named fits.", ""]
    units = {verdict.report.summary()["unit"] for verdict in chip.slices} - {None}
    unit = _unit(units.pop()) if len(units) == 1 else ""
    columns = ["slice", "chips", "status", f"used{unit}", f"HBM{unit}", "share"]
    shown = _shown(chip)
    rows = [
        row(
            [
                inline(verdict.accelerator),
                "" if verdict.chips is None else count(verdict.chips),
                *_slice_cells(verdict),
            ]
        )
        for verdict in shown
    ]
    parts.append(Rows("slice", header(columns, right=(1, 3, 4, 5)), rows))
    rest = chip.slices[len(shown) :]
    if rest:
        between = f"{inline(rest[0].accelerator)} to {inline(rest[-1].accelerator)}"
        parts += [f"{plural(len(rest), 'larger slice')} ({between}): {_tally(rest)}.", ""]
    reasons = {v.report.cannot_run for v in chip.slices} - {"", chip.cannot_run}
    mismatches = {v.report.mismatch for v in chip.slices} - {""}
    parts += [f"- cannot run: {inline(reason)}" for reason in sorted(reasons)]
    parts += [f"- not the slice's figures: {inline(said)}" for said in sorted(mismatches)]
    return [*parts, ""] if reasons or mismatches else parts


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
