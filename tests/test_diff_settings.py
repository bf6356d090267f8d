"""`tpuemb diff` through the settings, as `check` is: acknowledgements (a comment on the field, a
`[[suppress]]` entry with a reason, `file-ignore`), the unused ones reported, select / ignore /
per-file ignores / --isolated / --config, the two commands judging only their own suppressions,
and an output format registered once reaching both commands."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli import formatters
from tpuemb_cli.cli import main

from .helpers import CLEAN

RESIZED = CLEAN.replace("dimension: 16", "dimension: 32")
ACKNOWLEDGED = CLEAN.replace(
    "dimension: 16", "dimension: 32  # tpuemb: ignore[restore-error] retrained from scratch"
)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def report(*args: str) -> tuple[int, dict[str, object]]:
    result = invoke("diff", "--format", "json", *args)
    return result.exit_code, json.loads(result.stdout)


def kinds(document: dict[str, object]) -> list[str]:
    return [change["kind"] for change in document["changes"]]  # type: ignore[attr-defined]


def rules(document: dict[str, object]) -> list[tuple[str, str]]:
    return [(f["rule"], f["file"]) for f in document["findings"]]  # type: ignore[attr-defined]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / "old.pbtxt").write_text(CLEAN)
    return tmp_path


def test_a_comment_acknowledges_the_change_on_its_line(here: Path) -> None:
    (here / "new.pbtxt").write_text(RESIZED)
    assert report("old.pbtxt", "new.pbtxt") == (1, report("old.pbtxt", "new.pbtxt")[1])
    assert kinds(report("old.pbtxt", "new.pbtxt")[1]) == ["restore-error"]
    (here / "new.pbtxt").write_text(ACKNOWLEDGED)
    code, document = report("old.pbtxt", "new.pbtxt")
    assert (code, kinds(document), rules(document)) == (0, [], [])


def test_the_gate_stays_on_for_every_other_change(here: Path) -> None:
    (here / "new.pbtxt").write_text(ACKNOWLEDGED.replace('name: "video"', 'name: "videos"'))
    code, document = report("old.pbtxt", "new.pbtxt")
    assert code == 1
    assert "silent-reinit" in kinds(document) and "restore-error" not in kinds(document)


def test_an_acknowledgement_that_matches_nothing_is_reported(here: Path) -> None:
    (here / "new.pbtxt").write_text(
        CLEAN.replace("num_hosts: 1", "num_hosts: 1  # tpuemb: ignore[topology-change] resharded")
    )
    result = invoke("diff", "--format", "concise", "old.pbtxt", "new.pbtxt")
    assert (result.exit_code, result.stdout) == (
        0,
        "new.pbtxt:12:15: TE902 [warning] this suppression of topology-change suppresses "
        "nothing\nNo changes; 1 unused-suppression (1 file pair compared).\n",
    )
    _, document = report("old.pbtxt", "new.pbtxt")
    assert (kinds(document), rules(document)) == ([], [("TE902", "new.pbtxt")])


def test_a_suppress_entry_with_a_reason_acknowledges_one_field(here: Path) -> None:
    (here / "new.pbtxt").write_text(RESIZED.replace("num_hosts: 1", "num_hosts: 2"))
    (here / ".tpuemb.toml").write_text(
        '[[suppress]]\nfile = "new.pbtxt"\nfield = "table_descriptor[0].dimension"\n'
        'rules = ["restore-error"]\nreason = "retrained from scratch"\n'
    )
    code, document = report("old.pbtxt", "new.pbtxt")
    assert (code, kinds(document), rules(document)) == (0, ["topology-change"], [])
    # --isolated reads no configuration: the change is not acknowledged.
    code, document = report("--isolated", "old.pbtxt", "new.pbtxt")
    assert (code, kinds(document)) == (1, ["restore-error", "topology-change"])


def test_an_unused_suppress_entry_is_reported_and_check_leaves_it_alone(here: Path) -> None:
    (here / "new.pbtxt").write_text(CLEAN)
    (here / ".tpuemb.toml").write_text(
        '[[suppress]]\nfile = "new.pbtxt"\nfield = "table_descriptor[0].dimension"\n'
        'rules = ["restore-error"]\nreason = "retrained from scratch"\n'
    )
    code, document = report("old.pbtxt", "new.pbtxt")
    assert (code, rules(document)) == (0, [("TE902", str(here / ".tpuemb.toml"))])
    checked = invoke("check", "--format", "concise", "new.pbtxt")
    assert (checked.exit_code, checked.stdout) == (0, "All checks passed (1 file checked).\n")


def test_check_leaves_entries_of_rules_it_does_not_run_alone(here: Path) -> None:
    # Documented of `check` before diff was through the settings: an entry for an ignored rule
    # is not reported unused.
    (here / "new.pbtxt").write_text(CLEAN)
    (here / ".tpuemb.toml").write_text(
        'ignore = ["TE403"]\n[[suppress]]\nfile = "new.pbtxt"\nrules = ["TE403"]\nreason = "x"\n'
    )
    checked = invoke("check", "--format", "concise", "new.pbtxt")
    assert (checked.exit_code, checked.stdout) == (0, "All checks passed (1 file checked).\n")


def test_each_command_judges_only_its_own_suppressions(here: Path) -> None:
    (here / "new.pbtxt").write_text(
        ACKNOWLEDGED.replace(
            "mode: TRAINING", "mode: TRAINING  # tpuemb: ignore[TE501] a lint suppression"
        ).replace("num_hosts: 1", "num_hosts: 1  # tpuemb: ignore[cosmetic]")
    )
    checked = invoke("check", "--format", "concise", "new.pbtxt")
    # check: its own unused suppression; the diff's acknowledgement (used) and the one without
    # a reason (refused) are diff's to judge.
    assert checked.stdout.splitlines()[:-2] == [
        "new.pbtxt:11:17: TE902 [*] [warning] this suppression of TE501 suppresses nothing"
    ]
    code, document = report("old.pbtxt", "new.pbtxt")
    assert (code, kinds(document)) == (0, [])
    assert [(f["rule"], f["line"]) for f in document["findings"]] == [("TE901", 12)]  # type: ignore[attr-defined]


def test_a_change_to_what_the_new_file_no_longer_has_is_acknowledged_for_the_file(
    here: Path,
) -> None:
    two = CLEAN + 'table_descriptor { name: "gone" vocabulary_size: 10 dimension: 4 }\n'
    (here / "old.pbtxt").write_text(two)
    (here / "new.pbtxt").write_text(CLEAN)
    code, document = report("--fail-on", "orphaned-state", "old.pbtxt", "new.pbtxt")
    assert (code, kinds(document)) == (1, ["orphaned-state"])
    assert document["changes"][0]["file"] == "old.pbtxt"  # type: ignore[index]
    (here / "new.pbtxt").write_text(
        "# tpuemb: file-ignore[orphaned-state] the gone table was never served\n" + CLEAN
    )
    code, document = report("--fail-on", "orphaned-state", "old.pbtxt", "new.pbtxt")
    assert (code, kinds(document), rules(document)) == (0, [], [])


def test_ignore_and_per_file_ignores(here: Path) -> None:
    (here / "new.pbtxt").write_text(RESIZED.replace("num_hosts: 1", "num_hosts: 2"))
    assert kinds(report("--ignore", "topology-change", "old.pbtxt", "new.pbtxt")[1]) == [
        "restore-error"
    ]
    (here / ".tpuemb.toml").write_text('[per-file-ignores]\n"new.pbtxt" = ["TE951"]\n')
    code, document = report("old.pbtxt", "new.pbtxt")
    assert (code, kinds(document)) == (0, ["topology-change"])
    (here / "other.toml").write_text('ignore = ["TE955"]\n')
    code, document = report("--config", "other.toml", "old.pbtxt", "new.pbtxt")
    assert (code, kinds(document)) == (1, ["restore-error"])


def test_select_names_kinds_or_leaves_them_all(here: Path) -> None:
    (here / "new.pbtxt").write_text(RESIZED.replace("num_hosts: 1", "num_hosts: 2"))
    both = ["restore-error", "topology-change"]
    assert kinds(report("--select", "TE955", "old.pbtxt", "new.pbtxt")[1]) == ["topology-change"]
    assert kinds(report("--select", "restore-error", "old.pbtxt", "new.pbtxt")[1]) == [
        "restore-error"
    ]
    # A selection written for check (no kind of change in it) does not turn the gate off.
    (here / ".tpuemb.toml").write_text('select = ["TE4"]\n')
    code, document = report("old.pbtxt", "new.pbtxt")
    assert (code, kinds(document)) == (1, both)
    assert kinds(report("--select", "TE4", "old.pbtxt", "new.pbtxt")[1]) == both


def test_an_unknown_selector_exits_2(here: Path) -> None:
    (here / "new.pbtxt").write_text(RESIZED)
    result = invoke("diff", "--ignore", "restore-eror", "old.pbtxt", "new.pbtxt")
    assert result.exit_code == 2
    assert "unknown rule 'restore-eror'; did you mean `restore-error`?" in result.stderr


def test_a_broken_configuration_exits_2(here: Path) -> None:
    (here / "new.pbtxt").write_text(RESIZED)
    (here / ".tpuemb.toml").write_text("ignore = [\n")
    result = invoke("diff", "old.pbtxt", "new.pbtxt")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"tpuemb: error: {here / '.tpuemb.toml'}")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """An output format registered once, as a plugin would: one line per finding and a count."""
    module = types.ModuleType("tpuemb_test_counted")

    def format_report(report: formatters.Report, color: bool) -> str:
        lines = [f"{f.rule} {f.name} {f.file}" for f in report.findings]
        return "\n".join([*lines, f"{report.command}: {len(report.findings)}"]) + "\n"

    module.format_report = format_report  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(formatters.FORMATS, "counted", module.__name__)


@pytest.mark.usefixtures("counted")
def test_a_registered_format_reaches_check_and_diff(here: Path) -> None:
    (here / "new.pbtxt").write_text(RESIZED.replace("dimension: 32", "dimension: 0"))
    checked = invoke("check", "--format", "counted", "new.pbtxt")
    assert checked.stdout == "TE403 invalid-table-size new.pbtxt\ncheck: 1\n"
    diffed = invoke("diff", "--format", "counted", "old.pbtxt", "new.pbtxt")
    assert diffed.stdout == "TE951 restore-error new.pbtxt\ndiff: 1\n"
    assert "counted" in invoke("diff", "--help").stdout


def test_the_kinds_are_rules_of_the_catalog() -> None:
    listed = invoke("rules").stdout
    for code, name in [("TE951", "restore-error"), ("TE956", "cosmetic")]:
        assert any(line.split()[:2] == [code, name] for line in listed.splitlines())
    shown = invoke("rule", "restore-error")
    assert shown.exit_code == 0
    assert shown.stdout.startswith("# TE951 restore-error (error)")
    assert "## What TensorFlow does" in shown.stdout


def test_severity_gives_a_kind_its_level_and_fail_on_still_decides(here: Path) -> None:
    (here / "new.pbtxt").write_text(RESIZED)
    (here / ".tpuemb.toml").write_text('[severity]\nrestore-error = "warning"\n')
    code, document = report("old.pbtxt", "new.pbtxt")
    assert code == 1
    assert [c["severity"] for c in document["changes"]] == ["warning"]  # type: ignore[attr-defined]
