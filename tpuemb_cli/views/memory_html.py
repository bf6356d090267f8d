"""``explain --memory --format html``: the one HTML renderer, for every model's ``MemoryReport``
and for the sweep of chips and slices (``model/memory_sweep``). It draws what the JSON
document's ``summary`` says -- the figure against the HBM as a stacked bar of its parts and the
headroom, the stacks with their padding -- then the report's own table, notes and verdict, as
the text report words them. Every figure carries its JSON path (``model/html_page.figure``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tpuemb_cli.model.html_page import (
    figure,
    long_table,
    page,
    rows,
    stacked_bar,
    status,
    swatch,
    text,
)
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.memory_report import MemoryReport
from tpuemb_cli.model.memory_sweep import Sweep
from tpuemb_cli.views.memory_parts import bar
from tpuemb_cli.views.memory_text import chip_lines


def render_html(report: MemoryReport) -> str:
    """The report as one self-contained HTML page."""
    document = report.document()
    body = _report(report, document["summary"], "summary", 1)
    return page(f"tpuemb memory: {report.file}", body)


def _report(report: MemoryReport, summary: dict[str, Any], path: str, level: int) -> list[str]:
    """A report's section: ``summary`` is its part of the JSON document, at ``path``."""
    heading = report.heading or report.file
    out = [f"<h{level}>{text(heading)}</h{level}>"]
    if report.engine_line:
        out.append(f'<p class="muted">{text(report.engine_line)}</p>')
    out += _verdict(summary, path)
    out += _stacks(summary["stacks"], path, level + 1)
    if report.prose is not None:
        # Lines of prose: each escaped (its line breaks are not control characters to show).
        prose = "\n".join(text(line) for line in report.prose.rstrip("\n").split("\n"))
        out.append(f"<pre>{prose}</pre>")
    out += _table(report, level + 1)
    lines = [*report.notes, *report.verdict]
    if report.chip is not None:
        lines += chip_lines(report.chip)
    if lines:
        out.append('<div class="lines">' + "".join(f"<p>{text(x)}</p>" for x in lines) + "</div>")
    for index, (said, part) in enumerate(report.parts):
        deeper = min(level + 1, 6)
        out.append(f'<section class="part"><h{deeper}>{text(" ".join(said))}</h{deeper}>')
        part_path = f"{path}.layers[{index}]"
        out.append(figure(f"{part_path}.file", summary["layers"][index]["file"], css="file"))
        out += _report(part, summary["layers"][index], part_path, min(deeper + 1, 6))
        out.append("</section>")
    return out


def _verdict(summary: dict[str, Any], path: str) -> list[str]:
    """The figure against the HBM: the facts, then the stacked bar and its legend."""
    used, hbm = summary["used_bytes"], summary["hbm_bytes"]
    facts = [
        ("status", status(f"{path}.status", summary["status"])),
        ("accelerator", figure(f"{path}.accelerator", summary["accelerator"])),
        ("chip", figure(f"{path}.chip", summary["chip"])),
        ("unit", figure(f"{path}.unit", summary["unit"])),
        ("used a unit", figure(f"{path}.used_bytes", used, kind="bytes")),
        ("HBM a unit", figure(f"{path}.hbm_bytes", hbm, kind="bytes")),
        ("share of the HBM", figure(f"{path}.share", summary["share"], kind="share")),
    ]
    if summary["cannot_run"] is not None:
        facts.append(("cannot run", figure(f"{path}.cannot_run", summary["cannot_run"])))
    if summary.get("not_sized") is not None:
        facts.append(("not sized", figure(f"{path}.not_sized", summary["not_sized"])))
    if summary["mismatch"] is not None:
        facts.append(("not the slice's figures", figure(f"{path}.mismatch", summary["mismatch"])))
    out = ['<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts) + "</dl>"]
    if used is None:
        return out
    breakdown = summary["breakdown"]
    # No parts said: the figure alone, as one segment against the HBM.
    segments = [(b["label"], b["bytes"]) for b in breakdown] or [("used", used)]
    unit = summary["unit"] or "unit"
    label = f"{size_words(used)} used of {size_words(hbm)} HBM a {unit}"
    out.append('<div class="keep">' + stacked_bar(segments, hbm, label))
    legend = [
        (swatch(i), figure(f"{path}.breakdown[{i}].label", b["label"]),
         figure(f"{path}.breakdown[{i}].bytes", b["bytes"], kind="bytes", tag="span"))
        for i, b in enumerate(breakdown)
    ]  # fmt: skip
    if not breakdown:
        legend.append((swatch(0), "used", figure(f"{path}.used_bytes", used, kind="bytes")))
    if hbm is not None:
        left = figure(
            f"{path}.hbm_bytes", hbm - used, kind="bytes", extra=f' data-minus="{path}.used_bytes"'
        )
        word = "headroom" if hbm >= used else "headroom: none, the HBM is exceeded"
        legend.append((swatch(-1), f"{word} (the dashed line is the HBM)", left))
    out.append(
        '<table class="legend"><thead><tr><th></th><th>part</th><th class="num">bytes</th></tr>'
        f"</thead><tbody>{rows(legend)}</tbody></table></div>"
    )
    return out


def size_words(count: int | None) -> str:
    return "unknown" if count is None else size(count)


# A stack's bytes are the whole slice's (every array on every unit), as its padding's.
STACK_COLUMNS = (
    *("stack", "tables", "rows", "padding rows"),
    *("bytes (slice)", "padding", "padding share"),
)


def _stacks(stacks: Sequence[dict[str, Any]], path: str, level: int) -> list[str]:
    """The stacks (or tables) with their members, rows and padding."""
    if not stacks:
        return []
    head = "".join(
        f'<th class="{"num" if n else ""}">{name}</th>' for n, name in enumerate(STACK_COLUMNS)
    )
    body = []
    for i, stack in enumerate(stacks):
        at = f"{path}.stacks[{i}]"
        members = ", ".join(
            figure(f"{at}.tables[{j}]", name, css="mono") for j, name in enumerate(stack["tables"])
        )
        count = figure(f"{at}.tables", len(stack["tables"]), kind="length")
        share = (
            figure(
                f"{at}.padding_bytes",
                stack["padding_bytes"] / stack["bytes"],
                kind="share",
                extra=f' data-per="{at}.bytes"',
            )
            if stack["bytes"] and stack["padding_bytes"] is not None
            else "\u2014"
        )
        cells = [
            figure(f"{at}.name", stack["name"], css="mono"),
            f"<details><summary>{count}</summary>{members}</details>",
            figure(f"{at}.rows", stack["rows"], kind="count"),
            figure(f"{at}.padding_rows", stack["padding_rows"], kind="count"),
            figure(f"{at}.bytes", stack["bytes"], kind="bytes"),
            figure(f"{at}.padding_bytes", stack["padding_bytes"], kind="bytes"),
            share,
        ]
        body.append(
            "<tr>"
            + "".join(f'<td class="{"num" if n > 1 else ""}">{c}</td>' for n, c in enumerate(cells))
            + "</tr>"
        )
    return [
        f"<h{level}>Stacks and their padding</h{level}>",
        f'<table class="stacks"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
        "</table>",
    ]


def _table(report: MemoryReport, level: int) -> list[str]:
    """The report's table as the text report lays it out (its cells are the model's words)."""
    if not report.columns:
        return []
    columns = list(report.columns) + (["share"] if report.shares is not None else [])
    body = []
    for index, row in enumerate(report.rows):
        cells = [text(cell) for cell in row]
        if report.shares is not None:
            share = report.shares[index]
            cells.append(f'<span class="mono">{bar(share)} {share:6.1%}</span>')
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    widths = ["30%"] + [""] * (len(columns) - 1)  # the names, then the figures
    table = long_table("model", [text(c) for c in columns], widths, body, ' data-text-table=""')
    return [f"<h{level}>The report's table</h{level}>", table]


def render_sweep_html(sweep: Sweep) -> str:
    """The sweep as one page: a grid with a row a chip, its slices smallest first (consecutive
    slices with the same verdict and figures in one cell), the smallest that fits outlined and
    marked, and why a chip cannot run the document; then each chip's every slice."""
    document = sweep.document()
    out = [
        f"<h1>Which TPU does {text(sweep.file)} fit?</h1>",
        '<p class="muted">Each cell is the verdict of <code>explain --memory --tpu</code> on '
        "its slices, each alone; the smallest slice that fits (and that the document is laid "
        'out for) is outlined and marked <span class="badge">\u2605 smallest fit</span>; '
        "<b>*</b>: not the slices it is laid out for, the figures are the document's.</p>",
    ]
    grid, every = [], []
    for i, chip in enumerate(document["sweep"]):
        at = f"sweep[{i}]"
        named = [
            figure(f"{at}.chip", chip["chip"], css="badge"),
            "<br>smallest fit: " + figure(f"{at}.smallest_fit", chip["smallest_fit"]),
        ]
        if chip["cannot_run"] is not None:
            named.append("<br>cannot run: " + figure(f"{at}.cannot_run", chip["cannot_run"]))
        cells = [f"<th>{''.join(named)}</th>"]
        for run in _runs(chip["slices"]):
            cells.append(_run_cell(chip, at, run))
        grid.append("<tr>" + "".join(cells) + "</tr>")
        every.append(_every_slice(chip, at))
    out.append(f'<table class="grid"><tbody>{"".join(grid)}</tbody></table>')
    out.append("<h2>Every slice</h2>")
    out += every
    return page(f"tpuemb memory sweep: {sweep.file}", out)


def _runs(slices: Sequence[dict[str, Any]]) -> list[list[int]]:
    """The indices of consecutive slices with the same verdict and figures."""

    def key(verdict: dict[str, Any]) -> tuple[object, ...]:
        return tuple(verdict[k] for k in ("status", "used_bytes", "hbm_bytes", "cannot_run")) + (
            verdict["mismatch"] is not None,
        )

    runs: list[list[int]] = []
    for index, verdict in enumerate(slices):
        if runs and key(slices[runs[-1][-1]]) == key(verdict):
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def _run_cell(chip: dict[str, Any], at: str, run: list[int]) -> str:
    """A run of slices: the first and last named, the verdict and figures they share."""
    slices = chip["slices"]
    first, last = f"{at}.slices[{run[0]}]", f"{at}.slices[{run[-1]}]"
    verdict = slices[run[0]]
    names = figure(f"{first}.accelerator", verdict["accelerator"], css="badge")
    chips = figure(f"{first}.chips", verdict["chips"], kind="count")
    if len(run) > 1:
        names += " .. " + figure(f"{last}.accelerator", slices[run[-1]]["accelerator"], css="badge")
        chips += "\u2013" + figure(f"{last}.chips", slices[run[-1]]["chips"], kind="count")
    mark = " <b>*</b>" if verdict["mismatch"] is not None else ""
    lines = [names, status(f"{first}.status", verdict["status"]) + mark, "chips: " + chips]
    # The figures a slice has (none where it cannot run or is not sized).
    if verdict["used_bytes"] is not None:
        unit = " a " + figure(f"{first}.unit", verdict["unit"]) if verdict["unit"] else ""
        lines.append(
            "used: " + figure(f"{first}.used_bytes", verdict["used_bytes"], kind="bytes") + unit
        )
    if verdict["hbm_bytes"] is not None:
        share = figure(f"{first}.share", verdict["share"], kind="share")
        lines.append(
            "HBM: "
            + figure(f"{first}.hbm_bytes", verdict["hbm_bytes"], kind="bytes")
            + f" ({share})"
        )
    if verdict["cannot_run"] is not None and chip["cannot_run"] is None:
        lines.append("cannot run: " + figure(f"{first}.cannot_run", verdict["cannot_run"]))
    smallest = chip["smallest_fit"] in [slices[i]["accelerator"] for i in run]
    if smallest:
        lines.insert(0, '<span class="badge">\u2605 smallest fit</span>')
    css = ' class="smallest"' if smallest else ""
    return f"<td{css}>{'<br>'.join(lines)}</td>"


# The columns of a chip's every-slice table: a slice's keys, and how each is shown.
_SLICE_COLUMNS = (
    ("accelerator", ""),
    ("chips", "count"),
    ("devices", "count"),
    ("status", "status"),
    ("unit", ""),
    ("used_bytes", "bytes"),
    ("hbm_bytes", "bytes"),
    ("share", "share"),
    ("cannot_run", ""),
    ("mismatch", ""),
    ("not_sized", ""),
)


def _every_slice(chip: dict[str, Any], at: str) -> str:
    """Every slice of a chip, a row each (folded: the grid says the same, run by run)."""
    head = "".join(f"<th>{key.replace('_', ' ')}</th>" for key, _ in _SLICE_COLUMNS)
    rows = []
    for j, verdict in enumerate(chip["slices"]):
        cells = []
        for key, kind in _SLICE_COLUMNS:
            path = f"{at}.slices[{j}].{key}"
            if key not in verdict:
                cells.append("")
            elif kind == "status":
                cells.append(status(path, verdict[key]))
            else:
                cells.append(figure(path, verdict[key], kind=kind))
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (
        f"<details><summary>{text(chip['chip'])}: "
        f"{figure(f'{at}.slices', len(chip['slices']), kind='length')} slices</summary>"
        f'<table class="slices"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
        "</table></details>"
    )
