"""``--format html`` (issue 42, point 2), without a browser: ``check``'s, ``diff``'s and
``explain --memory``'s pages parse, show every figure of the JSON report of the same command
(tests/html_figures.py reads them back), fetch nothing and run nothing, and escape what a user
controls. tests/browser/ opens the same pages in Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.helpers import CLEAN
from tests.html_figures import (
    CHANGE_NOT_SHOWN,
    NOT_SHOWN,
    ONCE,
    Figure,
    check,
    parse,
    uncovered,
)
from tpuemb_cli.cli import main
from tpuemb_cli.formatters.html_docs import to_html
from tpuemb_cli.model.memory_report import ChipVerdict, MemoryReport, StackSummary
from tpuemb_cli.model.memory_sweep import ChipSweep, SliceVerdict, Sweep
from tpuemb_cli.views.memory_html import render_html, render_sweep_html

ROOT = Path(__file__).resolve().parent.parent
VIEWS = ROOT / "tpuemb_cli"
ECOSYSTEMS = re.compile(r"jax|keras|tensorflow|sparsecore|tensorcore|torchrec", re.IGNORECASE)
# What would run or fetch: none may be in a report.
ACTIVE = {"script", "link", "img", "iframe", "object", "embed", "audio", "video", "base"}
# A name that closes the style sheet and opens a script, then control characters.
HOSTILE = "</style><script>alert(1)</script>\x1b[31m\u202e\n"
HOSTILE_PBTXT = "</style><script>alert(1)</script>\\033[31m\\342\\200\\256\\n"


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result


def figures_of(page: str) -> list[Figure]:
    figures, tags = parse(page)
    assert not ACTIVE & set(tags), ACTIVE & set(tags)
    # Links within the page or to the rules' sources only, quoted or not.
    assert not re.search(r"""\b(src|href)=(?!["']?(#|https://))""", page)
    # No control character, even one a style sheet's escape let through (\203 is one).
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", page)
    assert figures
    return figures


def same_as_json(
    args: list[str], under: tuple[str, ...] = ("summary",), hidden: tuple[str, ...] = ()
) -> list[Figure]:
    """The page of ``args --format html`` shows every figure under ``under`` of ``args --format
    json``'s document, each equal to it, or, for a key a row may leave to the row above it
    (html_figures.ONCE), as that row says it; the keys ``hidden`` are not shown."""
    page = invoke(*args, "--format", "html").stdout
    document = json.loads(invoke(*args, "--format", "json").stdout)
    figures = figures_of(page)
    for figure in figures:
        check(document, figure)
    for part in under:
        missing = uncovered(document, figures, part, once=ONCE)
        assert {m for m in missing if m.rsplit(".", 1)[-1] not in hidden} == set(), part
    return figures


@pytest.mark.slow  # the first of the module pays for the SparseCore model's imports: 0.8 s
def test_explain_memory_against_a_chip() -> None:
    figures = same_as_json(
        ["explain", "--memory", "--tpu", "v5p", "examples/sparsecore/dlrm.spec.yaml"]
    )
    assert {"summary.used_bytes", "summary.hbm_bytes", "summary.status"} <= {
        f.path for f in figures
    }


def test_explain_memory_without_a_chip() -> None:
    same_as_json(["explain", "--memory", "examples/recommender.pbtxt"])


def test_check_groups_findings_by_file_with_the_rules_docs() -> None:
    figures = same_as_json(
        ["check", "examples/mistakes/"],
        under=("summary", "findings"),
        hidden=NOT_SHOWN,
    )
    page = invoke("check", "examples/mistakes/", "--format", "html").stdout
    codes = {f.text for f in figures if f.path.endswith(".rule")}
    # Each reported rule's documentation, and no other rule's.
    assert set(re.findall(r'<details id="rule-(TE\d+)"', page)) == codes
    assert page.count("<tr class=group>") == 1  # one file


@pytest.mark.slow  # two diffs of two specs: about a second
def test_diff_groups_changes_by_table() -> None:
    args = ["diff", "examples/recommender.spec.yaml", "examples/changes/recommender.next.spec.yaml"]
    figures = same_as_json(
        args,
        under=("summary", "changes"),
        hidden=CHANGE_NOT_SHOWN,
    )
    tables = [f.text for f in figures if re.fullmatch(r"changes\[\d+\]\.table", f.path)]
    assert tables == sorted(set(tables))  # each table named once, its rows together


def _mistaken(tables: int) -> str:
    """A config whose every table has a decay multiplier and no decay: one TE305 a table."""
    optimizer = (
        "adagrad {} learning_rate { constant: 0.1 } "
        "multiply_weight_decay_factor_by_learning_rate: true"
    )
    return (
        "".join(
            f'table_descriptor {{ name: "t{i}" vocabulary_size: 10 dimension: 4 '
            f"optimization_parameters {{ {optimizer} }} }}\n"
            for i in range(tables)
        )
        + "".join(
            f'feature_descriptor {{ name: "f{i}" table_id: {i} input_shape: 8 }}\n'
            for i in range(tables)
        )
        + "mode: TRAINING num_hosts: 1 num_tensor_cores: 8\n"
    )


@pytest.mark.slow  # 260 findings, twice: about a second
def test_a_long_page_says_each_table_and_file_in_full_at_its_top(tmp_path: Path) -> None:
    # 2 files of 130 findings: 262 rows with the files' headings, written as tables of 200 rows
    # (model/html_page.long_table); the second file's heading and the second table's first row
    # are each a row with nothing above it to leave anything to.
    for name in ("a.pbtxt", "b.pbtxt"):
        (tmp_path / name).write_text(_mistaken(130))
    figures = same_as_json(
        ["check", str(tmp_path)], under=("summary", "findings"), hidden=NOT_SHOWN
    )
    assert len({f.path.split(".")[0] for f in figures if f.path.startswith("findings")}) == 260
    page = invoke("check", str(tmp_path), "--format", "html").stdout
    tables = re.findall(r"<tbody>(.*?)</tbody>", page)
    assert len(tables) == 2
    tops, dittos = [], 0
    for body in tables:
        top = True
        for row in re.split(r"(?=<tr)", body)[1:]:
            if row.startswith("<tr class=group>"):
                top = True
                continue
            said_above = "<td><td>" in row or "class=above" in row
            assert not (top and said_above), row
            dittos += said_above
            tops += [row] if top else []
            top = False
    # Each file's first row and the second table's first: each says it all; the rest leave it.
    assert len(tops) == 3 and dittos == 260 - 3


def test_an_empty_value_is_shown_not_left_to_the_row_above(tmp_path: Path) -> None:
    old, new = tmp_path / "old.pbtxt", tmp_path / "new.pbtxt"
    old.write_text(CLEAN)
    new.write_text(CLEAN.replace('name: "watched"', 'name: ""', 1))  # a feature's
    figures = same_as_json(
        ["diff", str(old), str(new)], under=("summary", "changes"), hidden=CHANGE_NOT_SHOWN
    )
    assert any(f.text == "" for f in figures if f.path.endswith((".old", ".new")))


def test_hostile_names_are_text(tmp_path: Path) -> None:
    path = tmp_path / "hostile.pbtxt"
    path.write_text(hostile_config())
    changed = tmp_path / "changed.pbtxt"
    changed.write_text(hostile_config().replace("dimension: 16", "dimension: 32", 1))
    for args in (
        ["check", str(path)],
        ["explain", "--memory", "--tpu", "v5p", str(path)],
        ["diff", str(path), str(changed)],
    ):
        page = invoke(*args, "--format", "html").stdout
        figures_of(page)
        assert "<script>" not in page and "\x1b" not in page and "\u202e" not in page
        assert "&lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m\\u202e" in page


def hostile_config() -> str:
    """A config whose tables' names close the style sheet, open a script and hold control
    characters; the second table is used by no feature (a finding names it)."""
    second = CLEAN[: CLEAN.index("mode:")].replace('"video"', f'"clip{HOSTILE_PBTXT}"')
    return CLEAN.replace('name: "video"', f'name: "video{HOSTILE_PBTXT}"').replace(
        "mode:", second + "mode:", 1
    )


def _report(used: int | None, hbm: int | None, **more: object) -> MemoryReport:
    chip = ChipVerdict("x1", hbm, used or 0, unit="core") if hbm is not None else None
    return MemoryReport("toy", "t.cfg", chip=chip, used=used, **more)  # type: ignore[arg-type]


def test_memory_summary_figures_without_a_chip_breakdown_or_stacks() -> None:
    for report in (_report(None, None), _report(90, None), _report(90, 100)):
        document = report.document()
        figures = figures_of(render_html(report))
        for figure in figures:
            check(document, figure)
        assert uncovered(document, figures, "summary") == set()


def test_memory_breakdown_stacks_and_headroom() -> None:
    stack = StackSummary(HOSTILE, ("a", HOSTILE), 1024, 4096, 96, 24)
    report = _report(
        120, 100, breakdown=(("parameters", 80), ("optimizer state", 40)), stacks=(stack,)
    )
    document = report.document()
    page = render_html(report)
    figures = figures_of(page)
    for figure in figures:
        check(document, figure)
    assert uncovered(document, figures, "summary") == set()
    derived = [f for f in figures if "data-minus" in f.attrs or "data-per" in f.attrs]
    assert [f.text for f in derived] == ["-20 B", "2.3%"]  # over the HBM; the padding's share
    # Two segments in the bar and their two swatches, each its own pattern; the headroom empty.
    assert re.findall(r'fill="url\(#(p\d)\)"', page) == ["p0", "p1", "p0", "p1"]


def sweep_of() -> Sweep:
    """A sweep of two made-up chips: the first fits from its second slice, the second cannot
    run the document at all; its name is hostile."""

    def verdict(name: str, chips: int, used: int, cannot: str = "") -> SliceVerdict:
        return SliceVerdict(name, chips, chips * 4, _report(used, 100, cannot_run=cannot))

    return Sweep(
        "toy",
        f"t{HOSTILE}.cfg",
        (
            ChipSweep("x1", (verdict("x1-8", 4, 150), verdict("x1-16", 8, 90),
                             verdict("x1-32", 16, 45))),
            ChipSweep("x2", (verdict("x2-4", 4, 10, "no cores of the kind the spec needs"),)),
        ),
    )  # fmt: skip


def test_sweep_grid_marks_the_smallest_fit_and_why_a_chip_cannot_run() -> None:
    sweep = sweep_of()
    document = sweep.document()
    page = render_sweep_html(sweep)
    figures = figures_of(page)
    for figure in figures:
        check(document, figure)
    assert uncovered(document, figures, "sweep") == set()
    statuses = [f.text for f in figures if f.path.endswith(".status")]
    # In the grid, then in each chip's every-slice table.
    assert statuses == ["does-not-fit", "near", "fits", "cannot-run"] * 2
    # The smallest fit is marked in words, not by its outline alone.
    assert page.count('<td class="smallest"><span class="badge">\u2605 smallest fit') == 1
    cell = re.search(r'<td class="smallest">(.*?)</td>', page)
    assert cell is not None and "data-json=sweep[0].slices[1].accelerator" in cell[1]


def test_rule_docs_are_escaped_markdown() -> None:
    doc = (
        "Summary <b>.\n\n## What it does\nReports `a<b>` and [this](https://example.org/x)"
        " and [that](tests/x.py).\n\n```pbtxt\nx { y: 1 }\n```\n\n- one\n  two\n- three\n"
    )
    assert to_html(doc) == (
        "<p>Summary &lt;b&gt;.</p><h4>What it does</h4><p>Reports <code>a&lt;b&gt;</code> and "
        '<a href="https://example.org/x" rel="noreferrer">this</a> and that.</p>'
        "<pre><code>x { y: 1 }</code></pre><ul><li>one two</li><li>three</li></ul>"
    )


def test_the_html_renderers_name_no_ecosystem() -> None:
    for module in ("views/memory_html.py", "formatters/html.py", "model/html_page.py"):
        assert not ECOSYSTEMS.search((VIEWS / module).read_text()), module
