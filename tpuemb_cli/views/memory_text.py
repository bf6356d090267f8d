"""``explain --memory``: the one text renderer, for every model's ``MemoryReport``
(model/memory_report; each model's adapter builds it, wording included). It lays out what the
record says -- heading, engine line, table, notes, the verdict against the chip -- and branches
on no ecosystem."""

from __future__ import annotations

from tpuemb_cli.model.memory import WARNING_PERCENT, size
from tpuemb_cli.model.memory_report import ChipVerdict, MemoryReport
from tpuemb_cli.model.memory_sweep import FITTING, ChipSweep, SliceVerdict, Sweep
from tpuemb_cli.model.words import plural, printable
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
        if report.cannot_run:  # a part that cannot run: the whole cannot
            lines += ["", *verdict_lines(report)]
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
        # A reason may name the document's tables (input): escaped. Without a TPU named, the
        # document runs on none (a layer that refuses a table's placement whatever the chip).
        where = f"TPU {printable(chip)}: cannot run it" if chip else "It cannot run"
        return [f"{where}: {printable(report.cannot_run)}"]
    lines = [report.mismatch] if report.mismatch else []
    if report.chip is not None:
        lines += chip_lines(report.chip)
    return lines


# How the sweep's text says each status.
VERDICT_WORDS = {
    "fits": "fits",
    "near": f"fits, under {100 - WARNING_PERCENT}% left",
    "does-not-fit": "does not fit",
    "unknown": "HBM not known",
    "not-sized": "not sized",
    "cannot-run": "cannot run",
}


def _run_key(verdict: SliceVerdict) -> tuple[object, ...]:
    """What consecutive slices must share to be one row of the sweep's table."""
    report = verdict.report
    summary = report.summary()
    return (verdict.status, summary["used_bytes"], summary["hbm_bytes"], bool(report.mismatch))


def runs(verdicts: tuple[SliceVerdict, ...]) -> list[list[SliceVerdict]]:
    """Consecutive slices with the same verdict and figures: one row each of a sweep's table
    (the text's and the Markdown's). Consecutive in the chip's sizes, not only in the list:
    v6e-1 and v6e-256 named alone are two rows, not a range."""
    found: list[list[SliceVerdict]] = []
    for verdict in verdicts:
        last = found[-1][-1] if found else None
        if last is not None and _next(last, verdict) and _run_key(last) == _run_key(verdict):
            found[-1].append(verdict)
        else:
            found.append([verdict])
    return found


def _next(before: SliceVerdict, after: SliceVerdict) -> bool:
    """Whether ``after`` is the size that follows ``before``'s among its chip's slices."""
    from tpuemb_cli.model.accelerators import UnknownTpu, parse, slices

    try:
        one, other = parse(before.accelerator), parse(after.accelerator)
    except UnknownTpu:  # a sweep built of other names (the renderers' tests): no range
        return False
    if one.size is None or other.size is None or one.chip != other.chip:
        return False
    sizes = [accelerator.size for accelerator in slices(one.chip)]
    return sizes.index(other.size) == sizes.index(one.size) + 1


def span(run: list[SliceVerdict]) -> tuple[str, str]:
    """A run's slices and chips: ``v5p-8 .. v5p-24 (3 slices)``, ``4-12``."""
    first, last = run[0], run[-1]
    if len(run) == 1:
        name = printable(first.accelerator)
    else:
        name = (
            f"{printable(first.accelerator)} .. {printable(last.accelerator)} ({len(run)} slices)"
        )
    if first.chips is None:
        chips = "-"
    elif first.chips == last.chips:
        chips = f"{first.chips:,}"
    else:
        chips = f"{first.chips:,}-{last.chips or 0:,}"
    return name, chips


def chip_heading(chip: ChipSweep) -> str:
    """A chip's verdict in one line: why it cannot run the document, the smallest slice that
    fits, why it was not sized, that its HBM is not known, or that no slice fits."""
    if chip.cannot_run:
        return f"TPU {chip.chip}: cannot run it: {printable(chip.cannot_run)}"
    smallest = chip.smallest_fit
    if smallest is not None:
        near = f" (under {100 - WARNING_PERCENT}% left)" if smallest.status == "near" else ""
        if smallest.chips is None:
            return f"TPU {chip.chip}: fits{near}"
        chips = plural(smallest.chips, "chip")
        return (
            f"TPU {chip.chip}: the smallest slice that fits{near}: {smallest.accelerator} ({chips})"
        )
    statuses = {verdict.status for verdict in chip.slices}
    unsized = {verdict.report.why_not_sized for verdict in chip.slices}
    if statuses == {"not-sized"} and len(unsized) == 1:
        return f"TPU {chip.chip}: not sized: {unsized.pop() or 'the model gives no figure'}"
    if statuses == {"unknown"}:
        return f"TPU {chip.chip}: its HBM is not known (docs/memory.md); nothing to compare with"
    if statuses & set(FITTING):
        return (
            f"TPU {chip.chip}: fits only slices the document is not laid out for (*): lay it "
            "out for one of them to size it there"
        )
    return f"TPU {chip.chip}: no slice fits"


def render_sweep_text(sweep: Sweep) -> str:
    """The sweep as ``explain --memory --tpu v5p,v6e,...`` writes it: for each chip the
    smallest slice that fits, then its slices (consecutive ones with the same figures and
    verdict in one row), with the unit each figure is per."""
    lines = [
        f"{printable(sweep.file)}: which TPU it fits (each slice as `tpuemb explain --memory "
        "--tpu <slice>` says alone; `--format json` lists every slice)",
    ]
    for chip in sweep.chips:
        heading = chip_heading(chip)
        lines += ["", heading]
        if chip.cannot_run or heading.startswith(f"TPU {chip.chip}: not sized"):
            continue  # nothing per slice to show
        rows = [["slice", "chips", "used", "HBM", "share", "verdict"]]
        mismatch = ""
        for run in runs(chip.slices):
            summary = run[0].report.summary()
            name, chips = span(run)
            used, hbm, unit = summary["used_bytes"], summary["hbm_bytes"], summary["unit"]
            per = f" a {unit}" if unit else ""
            words = VERDICT_WORDS[run[0].status]
            if run[0].status == "cannot-run":
                words += f": {printable(run[0].report.cannot_run)}"
            if run[0].report.mismatch:
                mismatch = mismatch or run[0].report.mismatch
                words += " *"
            rows.append(
                [
                    name,
                    chips,
                    f"{size(used)}{per}" if used is not None else "-",
                    f"{size(hbm)}{per}" if hbm is not None else "-",
                    f"{summary['share']:.1%}" if summary["share"] is not None else "-",
                    printable(words),
                ]
            )
        lines += ["  " + line for line in grid(rows)]
        if mismatch:
            lines.append(
                f"  * not the slice it is laid out for; its figures are the document's: e.g. "
                f"{printable(mismatch)}"
            )
    return text_of(lines)
