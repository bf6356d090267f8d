"""`explain --memory --format markdown` and the sweep's Markdown (issue 42, point 3): every model's
report and the sweep over chips and slices as GitHub-flavoured Markdown, their figures the JSON
document's, the input's strings escaped, within GitHub's limits."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.engine.settings import Selection
from tpuemb_cli.frontends import memory_of
from tpuemb_cli.model import accelerators
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.memory_report import STATUSES, ChipVerdict, MemoryReport, StackSummary
from tpuemb_cli.model.memory_sweep import ChipSweep, SliceVerdict, Sweep
from tpuemb_cli.model.schema import kind_of
from tpuemb_cli.model.words import count, printable
from tpuemb_cli.views.memory_markdown import MARKS, render_markdown, render_sweep_markdown
from tpuemb_cli.views.memory_text import chip_heading
from tpuemb_cli.workspace import Workspace

from .markdown_tables import HOSTILE, tables, within_limits
from .test_memory_renderers import ECOSYSTEMS, VIEWS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {
    "examples/recommender.spec.yaml": "v5p-8",
    "examples/sparsecore/dlrm.spec.yaml": "v6e",
    "examples/jax/recommender.stacked.pbtxt": "v6e",
    "examples/torchrec/recommender.torchrec.pbtxt": "v5p-8",
    "examples/keras/ranking.keras": "v5p-8",
}


def memory_report(path: str, tpu: str) -> MemoryReport:
    """The report ``explain --memory --tpu <tpu> <path>`` renders."""
    linted = Workspace(selection=Selection(tpu=tpu)).lint_document(
        (ROOT / path).read_bytes(), path, exclude=False
    )
    document, engine = linted.document, linted.engine
    assert document is not None and document.message is not None and engine is not None
    engine.settle(document.message)
    memory = memory_of(kind_of(document.message))
    assert memory is not None
    report = memory(document, linted.facts, engine)
    assert isinstance(report, MemoryReport)
    return report


def summary_row(summary: dict[str, object]) -> dict[str, str]:
    """The summary's table row as the page must show it: the JSON's figures, as sizes."""
    unit = f" a {summary['unit']}" if summary["unit"] else ""
    used, hbm, share = summary["used_bytes"], summary["hbm_bytes"], summary["share"]
    return {
        "status": f"{MARKS[str(summary['status'])]} {summary['status']}",
        "accelerator": str(summary["accelerator"] or ""),
        "chip": str(summary["chip"] or ""),
        f"used{unit}": size(used) if isinstance(used, int) else "",
        f"HBM{unit}": size(hbm) if isinstance(hbm, int) else "",
        "share": f"{share:.1%}" if isinstance(share, float) else "",
    }


def stack_row(stack: dict[str, Any]) -> dict[str, str]:
    """A stack of the summary as its row must show it (a figure the model leaves out: empty)."""

    def shown(value: int | None, write: Callable[[int], str]) -> str:
        return "" if value is None else write(value)

    padding, whole = stack["padding_bytes"], stack["bytes"]
    return {
        "stack": printable(stack["name"]),
        "tables": printable(", ".join(stack["tables"]))[:997] + "..."
        if len(printable(", ".join(stack["tables"]))) > 1000
        else printable(", ".join(stack["tables"])),
        "rows": shown(stack["rows"], count),
        "padding rows": shown(stack["padding_rows"], count),
        "size": shown(whole, size),
        "padding": shown(padding, size),
        "padding share": f"{padding / whole:.1%}" if padding is not None and whole else "",
    }


def test_the_renderer_names_no_ecosystem_and_marks_every_status() -> None:
    assert not ECOSYSTEMS.search((VIEWS / "memory_markdown.py").read_text())
    assert set(MARKS) == set(STATUSES)


@pytest.mark.parametrize("path", EXAMPLES)
def test_every_models_report_has_the_json_figures(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    args = ["explain", "--memory", "--tpu", EXAMPLES[path], path]
    ran = CliRunner().invoke(main, [*args, "--format", "markdown"], catch_exceptions=False)
    document = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    page = ran.stdout
    within_limits(page)
    report = memory_report(path, EXAMPLES[path])
    assert report.document() == document
    # A report of parts (a model's layers) has each part's tables in turn: its summary, what
    # the figure is made of and its stacks when the model says them, then the model's own.
    reports = [part for _, part in report.parts] or [report]
    summaries = document["summary"]["layers"] or [document["summary"]]
    found = iter(tables(page))
    for part, said in zip(reports, summaries, strict=True):
        assert next(found) == [summary_row(said)]
        used = said["used_bytes"]
        if said["breakdown"]:
            assert next(found) == [
                {"part": b["label"], "size": size(b["bytes"]), "share": f"{b['bytes'] / used:.1%}"}
                for b in said["breakdown"]
            ]
        if said["stacks"]:
            assert next(found) == [stack_row(stack) for stack in said["stacks"]]
        table = next(found)
        columns = [*part.columns, *(["share"] if part.shares is not None else [])]
        assert [list(row) for row in table] == [columns] * len(part.rows)
        cells = [[printable(cell) for cell in row] for row in part.rows]
        assert [list(row.values())[: len(part.columns)] for row in table] == cells
        if part.shares is not None:
            assert [row["share"] for row in table] == [f"{s:.1%}" for s in part.shares]
    assert next(found, None) is None
    # The verdict in the text view's words.
    assert "- fits\n" in page


def hand_made(rows: int, name: str = "table") -> MemoryReport:
    """A report with every part a model may fill: stacks, breakdown, notes, advice."""
    verdict = ChipVerdict(
        "x1", 1_000_000, 900_000, unit="unit", what="things", exceeded="too much", ask="do",
        advice=("  fewer things", "  @team, look"),
    )  # fmt: skip
    return MemoryReport(
        "toy",
        f"{name}.cfg",
        heading=f"{name}.cfg: things",
        engine_line="- engine: toy",
        columns=("table", "bytes"),
        rows=tuple((f"{name}_{index}", size(index)) for index in range(rows)),
        shares=tuple(1 / rows for _ in range(rows)),
        notes=(f"total: 900,000 bytes; {name}",),
        chip=verdict,
        stacks=(StackSummary(f"{name}|stack", (name, "b"), 1000, 64_000, 1_536, 24),),
        accelerator="x1-8",
        unit="unit",
        used=900_000,
        breakdown=(("parameters", 600_000), (f"{name} state", 300_000)),
    )


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_and_every_part_of_the_summary(name: str) -> None:
    report = hand_made(2, name)
    page = render_markdown(report)
    within_limits(page)
    summary, breakdown, stacks, own = tables(page)
    assert summary == [summary_row(report.summary())]
    assert summary[0]["status"] == "⚠️ near" and summary[0]["accelerator"] == "x1-8"
    assert breakdown == [
        {"part": "parameters", "size": "585.9 KiB", "share": "66.7%"},
        {"part": f"{printable(name)} state", "size": "293.0 KiB", "share": "33.3%"},
    ]
    assert stacks == [
        {
            "stack": printable(f"{name}|stack"),
            "tables": printable(f"{name}, b"),
            "rows": "1,000",
            "padding rows": "24",
            "size": "62.5 KiB",
            "padding": "1.5 KiB",
            "padding share": "2.4%",
        }
    ]
    assert [row["table"] for row in own] == [printable(f"{name}_{i}") for i in range(2)]
    # The words: the model's, then the text view's verdict, advice nested under it.
    assert "\n- TPU x1: 976.6 KiB of HBM a unit; the things take 90.0% of it\n" in page
    assert "\n  - @&#8203;team, look\n" in page
    assert "\n\\- engine: toy\n" in page  # a line of the input's is no list item


def test_an_empty_summary_and_prose_render() -> None:
    bare = MemoryReport("toy", "t.cfg", heading="t.cfg", columns=("table",), rows=(("a",),))
    summary, own = tables(render_markdown(bare))
    assert summary == [summary_row(bare.summary())] and summary[0]["status"] == "➖ not-sized"
    assert own == [{"table": "a"}]
    prose = render_markdown(MemoryReport("toy", "t.cfg", prose="t.cfg: nothing\n# to lay out\n"))
    assert prose == "## t.cfg\n\nt.cfg: nothing\n#&#8203; to lay out\n\n"


def test_a_report_of_twenty_thousand_tables_keeps_its_verdict_within_the_limit() -> None:
    page = render_markdown(hand_made(20_000))
    within_limits(page)
    shown = len(tables(page)[-1])
    assert 100 < shown < 20_000
    assert "\n- TPU x1: 976.6 KiB" in page  # the words after the table are kept
    assert page.endswith(
        f"_Left out to stay within GitHub's 65,536 characters: {20_000 - shown:,} tables. "
        "`tpuemb explain --memory --format json` lists them all._\n"
    )


def verdict(
    accelerator: str,
    chips: int | None,
    used: int,
    hbm: int,
    cannot_run: str = "",
    mismatch: str = "",
) -> SliceVerdict:
    chip = ChipVerdict(accelerator.split("-")[0], hbm, used, unit="device")
    report = MemoryReport("toy", "t", chip=chip, cannot_run=cannot_run, mismatch=mismatch)
    return SliceVerdict(accelerator, chips, chips, report)


def test_the_sweep_says_each_chips_smallest_fit_first_and_keeps_long_chips_short() -> None:
    sizes = [2 * n for n in range(1, 73)]  # 72 slices, as v4 and v5p have
    big = ChipSweep(
        "v9",
        tuple(verdict(f"v9-{n}", n, 1_000_000 // n, 60_000) for n in sizes),
    )
    small = ChipSweep("v8", (verdict("v8-1", 1, 10, 100, mismatch="laid out for 4 devices"),))
    none = ChipSweep("v7", (verdict("v7-1", 1, 200, 100), verdict("v7-2", 2, 100, 99)))
    gone = ChipSweep("v6", (verdict("v6", None, 1, 100, cannot_run="no <cores> here"),))
    sweep = Sweep("toy", "@me|t.cfg", (big, small, none, gone))
    page = render_sweep_markdown(sweep)
    within_limits(page)
    assert page.startswith("## Which TPU fits @&#8203;me\\|t.cfg\n")
    overview, *chips = tables(page)
    # 1,000,000 / n bytes fit 60,000 from v9-18 (55,555 bytes: near), v9-26 below 80%.
    assert overview == [
        {"chip": "v9", "smallest slice that fits": "v9-18", "chips": "18", "used": "54.3 KiB a "
         "device", "HBM": "58.6 KiB a device", "share": "92.6%"},
        {"chip": "v8", "smallest slice that fits": "none", "chips": "", "used": "", "HBM": "",
         "share": ""},
        {"chip": "v7", "smallest slice that fits": "none", "chips": "", "used": "", "HBM": "",
         "share": ""},
        {"chip": "v6", "smallest slice that fits": "⛔ cannot-run", "chips": "", "used": "",
         "HBM": "", "share": ""},
    ]  # fmt: skip
    nine = chips[0]
    assert [row["slices"] for row in nine] == [f"v9-{n}" for n in sizes[:12]]
    for row, said in zip(nine, (v.document() for v in big.slices), strict=False):
        assert row == {
            "slices": said["accelerator"],
            "chips": count(said["chips"]),
            "status": f"{MARKS[said['status']]} {said['status']}",
            "used a device": size(said["used_bytes"]),
            "HBM a device": size(said["hbm_bytes"]),
            "share": f"{said['share']:.1%}",
        }
    # Each chip's verdict in the text view's words.
    assert "\nTPU v9: the smallest slice that fits (under 20% left): v9-18 (18 chips)\n" in page
    assert "\n60 larger slices (v9-26 to v9-144): fits (60).\n" in page
    assert "\nTPU v8: fits only slices the document is not laid out for (\\*)" in page
    assert "\n- \\* not the slice it is laid out for, e.g.: laid out for 4 devices\n" in page
    assert "\nTPU v7: no slice fits\n" in page
    assert [row["status"] for row in chips[2]] == ["❌ does-not-fit", "❌ does-not-fit"]
    assert "\nTPU v6: cannot run it: no &lt;cores&gt; here\n" in page
    assert len(chips) == 3  # no table for a chip that cannot run it


def real_sweep(path: str, names: str) -> Sweep:
    chips = []
    for name in names.split(","):
        accelerator = accelerators.parse(name)
        sliced = accelerators.slices(accelerator.chip) or (accelerator,)
        verdicts = tuple(
            SliceVerdict(a.name, a.chips, a.devices, memory_report(path, a.name)) for a in sliced
        )
        chips.append(ChipSweep(accelerator.chip.name, verdicts))
    return Sweep("toy", path, tuple(chips))


def check_sweep(sweep: Sweep) -> None:
    page = render_sweep_markdown(sweep)
    within_limits(page)
    overview, *chips = tables(page)
    assert [row["chip"] for row in overview] == [chip.chip for chip in sweep.chips]
    # A chip that cannot run the document, or was not sized, has its verdict and no table.
    tabled = [
        chip
        for chip in sweep.chips
        if not chip.cannot_run and not chip_heading(chip).startswith(f"TPU {chip.chip}: not sized")
    ]
    for rows, chip in zip(chips, tabled, strict=True):
        documents = {v.accelerator: v.document() for v in chip.slices}
        for row in rows:
            # A row of consecutive slices with the same figures: its first slice's.
            said = documents[row["slices"].split(" .. ")[0]]
            assert row["status"].removesuffix(" *") == f"{MARKS[said['status']]} {said['status']}"
            used = [value for key, value in row.items() if key.startswith("used")]
            assert used == [size(said["used_bytes"]) if said["used_bytes"] is not None else ""]
            assert row["share"] == (f"{said['share']:.1%}" if said["share"] is not None else "")


def test_a_sweep_of_real_reports() -> None:
    check_sweep(real_sweep("examples/jax/recommender.stacked.pbtxt", "v6e,tpu7x"))


@pytest.mark.slow  # 113 reports: seconds
def test_a_sweep_of_real_reports_over_every_v5p_slice() -> None:
    for path in ("examples/recommender.spec.yaml", "examples/torchrec/recommender.torchrec.pbtxt"):
        check_sweep(real_sweep(path, "v5p,v6e,tpu7x"))


def test_the_commands_sweep_in_markdown_says_what_its_json_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    args = ["explain", "--memory", "--tpu", "v6e,tpu7x", "examples/jax/recommender.stacked.pbtxt"]
    page = CliRunner().invoke(main, [*args, "--format", "markdown"], catch_exceptions=False).stdout
    document = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    within_limits(page)
    overview = tables(page)[0]
    assert [(row["chip"], row["smallest slice that fits"]) for row in overview] == [
        (chip["chip"], chip["smallest_fit"] or ("⛔ cannot-run" if chip["cannot_run"] else "none"))
        for chip in document["sweep"]
    ]
