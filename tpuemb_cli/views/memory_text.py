"""``explain --memory``: the one text renderer, for every model's ``MemoryReport``
(model/memory_report; each model's adapter builds it, wording included). It lays out what the
record says -- heading, engine line, table, notes, the verdict against the chip -- and branches
on no ecosystem."""

from __future__ import annotations

from tpuemb_cli.model.memory import WARNING_PERCENT, size
from tpuemb_cli.model.memory_report import ChipVerdict, MemoryReport
from tpuemb_cli.views.memory_parts import bar
from tpuemb_cli.views.text import text_of


def grid(rows: list[list[str]]) -> list[str]:
    """A table's lines: its header, a rule, its rows, each column as wide as its widest cell."""
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def chip_lines(verdict: ChipVerdict) -> list[str]:
    """The figures against the chip's HBM, whether they fit, and what would help."""
    hbm = verdict.hbm
    if hbm is None:
        return [
            f"TPU {verdict.chip}: its HBM is not known (docs/memory.md); nothing to compare with"
        ]
    lines = [
        f"TPU {verdict.chip}: {size(hbm)} of HBM a {verdict.unit}{verdict.unit_note}; the "
        f"{verdict.what} take {verdict.used / hbm:.1%} of it",
        *verdict.notes,
    ]
    if verdict.used > hbm:
        lines.append(f"does not fit: {verdict.exceeded}. What would {verdict.ask}:")
    elif verdict.used > hbm * WARNING_PERCENT // 100:
        left = 100 - WARNING_PERCENT
        lines.append(
            f"fits, with less than {left}% left for the rest of the program. "
            f"What would leave {left}%:"
        )
    else:
        return [*lines, "fits"]
    return [*lines, *verdict.advice]


def render_text(report: MemoryReport) -> str:
    """The report as ``explain --memory`` writes it."""
    if report.prose is not None:
        return report.prose
    if report.parts:
        lines = [report.heading]
        for said, part in report.parts:
            # The part's report is escaped already: its lines.
            lines += ["", *said, *render_text(part).rstrip("\n").split("\n")]
        return text_of(lines)
    rows = [list(report.columns), *(list(row) for row in report.rows)]
    if report.shares is not None:
        rows[0].append("share")
        for row, share in zip(rows[1:], report.shares, strict=True):
            row.append(f"{bar(share)} {share:6.1%}")
    lines = [report.heading, report.engine_line, "", *grid(rows), "", *report.notes, ""]
    lines += report.verdict
    lines += verdict_lines(report)
    return text_of(lines)


def verdict_lines(report: MemoryReport) -> list[str]:
    """The report against the TPU named: why it cannot run there, or the slice it does not
    match (the figures are the document's), then the figures against the chip's HBM."""
    if report.cannot_run:
        chip = report.chip.chip if report.chip is not None else report.accelerator
        return [f"TPU {chip}: cannot run it: {report.cannot_run}"]
    lines = [report.mismatch] if report.mismatch else []
    if report.chip is not None:
        lines += chip_lines(report.chip)
    return lines
