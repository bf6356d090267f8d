"""`--format markdown` (issue 42, point 3): check's and diff's reports as GitHub-flavoured
Markdown for a job summary or a pull-request comment -- the same figures as the JSON report,
every string from the input escaped, within GitHub's limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from tpuemb_cli.cli import main
from tpuemb_cli.formatters import Report, get, summary, transition
from tpuemb_cli.model.findings import Finding, Position, Severity, Transition
from tpuemb_cli.model.markdown import LIMIT, inline, paragraph
from tpuemb_cli.model.words import printable

from .markdown_tables import HOSTILE, shown, split, tables, within_limits

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_check_on_the_examples_says_what_the_json_says(tmp_path: Path) -> None:
    # Both reports of one run: the JSON to a file, the Markdown on stdout.
    written = tmp_path / "report.json"
    markdown = invoke(
        "check", "--format", "json", "--output-file", str(written), "--format", "markdown",
        str(EXAMPLES),
    )  # fmt: skip
    report = json.loads(written.read_text())
    assert markdown.exit_code == 1
    page = markdown.stdout
    within_limits(page)
    assert page.startswith("## tpuemb check\n\nFound 7 errors, 1 warning, 1 info in 3 files")
    rows = [row for table in tables(page) for row in table]
    findings = report["findings"]
    assert len(rows) == len(findings) == 9
    # Grouped by file, each under its name, in the report's order.
    for row, finding in zip(rows, findings, strict=True):
        assert row == {
            "line": f"{finding['line']}:{finding['column']}",
            "rule": f"{finding['rule']} {finding['name']}",
            "severity": finding["severity"],
            "message": finding["message"],
            "field": finding["field"],
            "help": finding["help"] or "",
        }
    files = list(dict.fromkeys(finding["file"] for finding in findings))
    headings = [shown(line[4:]) for line in page.splitlines() if line.startswith("### ")]
    assert headings == [*files, "Rules"]
    # Each rule with a finding has its documentation, folded; no other rule has.
    documented = [line.split()[0] for line in page.splitlines() if line.startswith("<details>")]
    assert documented == [f"<details><summary>{code}" for code in sorted(
        {finding["rule"] for finding in findings})]  # fmt: skip
    assert "#### What it does" in page and "left out" not in page.lower()


def test_diff_groups_the_changes_by_table_with_the_json_figures() -> None:
    old, new = EXAMPLES / "recommender.spec.yaml", EXAMPLES / "changes/recommender.next.spec.yaml"
    markdown = invoke("diff", str(old), str(new), "--format", "markdown")
    report = json.loads(invoke("diff", str(old), str(new), "--format", "json").stdout)
    assert markdown.exit_code == 1
    page = markdown.stdout
    within_limits(page)
    assert page.startswith(
        "## tpuemb diff\n\nFound 4 changes: 1 restore-error, 1 silent-reinit, 1 training-change, "
        "1 topology-change (1 file pair compared).\n"
    )
    [rows] = tables(page)
    changes = sorted(report["changes"], key=lambda c: c["table"] != "user_id")  # table order

    def moved(change: dict[str, object]) -> str:
        finding = Finding("f", "r", "n", Severity.INFO, "m", (), change=Transition(
            None, change["old"], change["new"]))  # type: ignore[arg-type]  # fmt: skip
        return transition(finding)

    assert rows == [
        {
            "table": change["table"] or "",
            "kind": change["kind"],
            "severity": change["severity"],
            "field": change["field"],
            "old -> new": moved(change),
            "message": change["message"],
            "line": f"{change['line']}:{change['column']}",
        }
        for change in changes
    ]
    assert [row["table"] for row in rows] == ["user_id", "country", "country", ""]
    assert "<details><summary>TE951 restore-error (error)" in page


def hostile(index: int, text: str, change: bool = True) -> Finding:
    return Finding(
        f"configs/{text}.pbtxt",
        "TE407",
        "table-id-out-of-range",
        Severity.ERROR,
        f"table {text!s} is wrong",
        ("table_descriptor", index, "name"),
        text,
        Position(index + 1, 1, index + 1, 2),
        change=Transition(text, text, None) if change else None,
    )


def test_hostile_names_cannot_break_a_table_ping_anyone_or_run_html() -> None:
    findings = [hostile(index, text) for index, text in enumerate(HOSTILE)]
    for command in ("check", "diff"):
        page = get("markdown")(Report(findings, 1, command=command), False)
        within_limits(page)
        rows = [row for table in tables(page) for row in table]
        assert len(rows) == len(HOSTILE)
        for row, text in zip(rows, HOSTILE, strict=True):
            # Each cell shows the string as the terminal formats do (controls escaped).
            assert row["message"] == f"table {printable(text)} is wrong"
            if command == "diff":
                assert row["table"] == printable(text)
                assert row["old -> new"] == printable(f"{text} -> (none)")
        headings = [line for line in page.splitlines() if line.startswith("### ")]
        assert [shown(line[4:]) for line in headings[:-1]] == [
            printable(f"configs/{text}.pbtxt") for text in HOSTILE
        ]
    # One line each, whatever the name holds; nothing GitHub would act on.
    assert paragraph("- 1. item") == "\\- 1. item" and paragraph("2) x") == "2\\) x"
    assert inline("@team #3") == "@&#8203;team #&#8203;3"
    assert inline("table_id _x_") == "table_id \\_x\\_"
    cells = [inline("a|b"), inline("c\\")]
    assert split(f"| {cells[0]} | {cells[1]} |") == ["a\\|b", "c\\\\"]


def test_a_long_report_keeps_within_githubs_limit_and_says_what_it_left_out() -> None:
    findings = [
        Finding(
            f"configs/model_{index // 100}.pbtxt",
            "TE407",
            "table-id-out-of-range",
            Severity.ERROR,
            f"feature {index} has `table_id: 2`, but the config has 2 tables",
            ("feature_descriptor", index, "table_id"),
            "point the feature at the index of its table",
            Position(index + 1, 3, index + 1, 9),
        )
        for index in range(10_000)
    ]
    report = Report(findings, 100)
    page = get("markdown")(report, False)
    within_limits(page)
    shown_rows = sum(len(table) for table in tables(page))
    assert 100 < shown_rows < 10_000
    # The summary still counts them all; the last line says how many were left out, and how
    # to see them.
    assert summary(report) in page
    assert page.endswith(
        f"_Left out to stay within GitHub's 65,536 characters: {10_000 - shown_rows:,} "
        "findings, 1 rule's documentation. `tpuemb check --format json` lists them all; "
        "`tpuemb rule CODE` prints a rule's documentation._\n"
    )
    # Whole rows only: every table row has its six cells.
    assert all(len(split(line)) == 6 for line in page.splitlines()[8:] if line.startswith("| "))
    assert len(page.encode()) > LIMIT - 2_000  # the room is used


def test_a_huge_name_is_cut_within_its_cell() -> None:
    finding = hostile(0, "x" * 100_000, change=False)
    page = get("markdown")(Report([finding], 1), False)
    within_limits(page)
    [[row]] = tables(page)
    assert row["help"] == "x" * 997 + "..." and row["message"].endswith("x...")


@pytest.mark.slow  # hypothesis: a second or more
@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_any_string_is_one_cell_shown_as_written(text: str) -> None:
    cell = inline(text)
    line = f"| {cell} | x |"
    assert "\n" not in line and "\r" not in line
    assert split(line) == [cell.strip(" "), "x"]
    # GitHub trims a cell's spaces, as it trims a paragraph's.
    assert shown(split(line)[0]) == printable(text).strip(" ")
    within_limits(line)
