"""Suppressions: comments in text files, configuration entries for JSON and binary, the baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN, CONFIGS

ZERO = CLEAN.replace("constant: 0.05 }", "constant: 0 }")  # TE105 on line 7


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def report(*args: str) -> dict:  # type: ignore[type-arg]
    result = invoke("check", "--format", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    loaded: dict = json.loads(result.stdout)  # type: ignore[type-arg]
    return loaded


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_end_of_line_and_file_level_comments(project: Path) -> None:
    (project / "a.pbtxt").write_text(
        ZERO.replace("constant: 0 }", "constant: 0 }  # tpuemb: ignore[TE105] frozen table")
    )
    (project / "b.pbtxt").write_text(
        "# tpuemb: file-ignore[zero-learning-rate] all frozen\n" + ZERO
    )
    assert report("a.pbtxt", "b.pbtxt")["findings"] == []


def test_require_reason_can_be_turned_off(project: Path) -> None:
    (project / "a.pbtxt").write_text(
        ZERO.replace("constant: 0 }", "constant: 0 }  # tpuemb: ignore[TE105]")
    )
    assert [f["rule"] for f in report("a.pbtxt")["findings"]] == ["TE105", "TE901"]
    (project / ".tpuemb.toml").write_text("require-reason = false\n")
    assert report("a.pbtxt")["findings"] == []


def test_configuration_suppresses_json_and_binary_by_field(project: Path) -> None:
    (project / "configs").mkdir()
    (project / "configs" / "custom.pb").write_bytes((CONFIGS / "custom_optimizer.pb").read_bytes())
    (project / "configs" / "zero.json").write_text(
        '{"tableDescriptor": [{"name": "t", "vocabularySize": 8, "dimension": 4,'
        ' "optimizationParameters": {"adagrad": {}, "learningRate": {"constant": 0}}}],'
        ' "mode": "TRAINING", "numHosts": 1, "numTensorCores": 1,'
        ' "featureDescriptor": [{"tableId": 0, "inputShape": [4]}]}'
    )
    assert {f["rule"] for f in report("configs")["findings"]} == {"TE201", "TE105"}
    (project / "pyproject.toml").write_text(
        "[tool.tpuemb]\n"
        "[[tool.tpuemb.suppress]]\n"
        'file = "configs/*.pb"\nfield = "table_descriptor[0].*"\nrules = ["TE201"]\n'
        'reason = "CustomOptimizer on purpose"\n'
        "[[tool.tpuemb.suppress]]\n"
        'file = "configs/zero.json"\nfield = "table_descriptor[*].optimization_parameters.*"\n'
        'rules = ["zero-learning-rate"]\nreason = "frozen"\n'
    )
    assert report("configs")["findings"] == []


def test_unused_configuration_suppression_is_reported(project: Path) -> None:
    (project / "a.json").write_text('{"mode": "TRAINING"}')
    (project / ".tpuemb.toml").write_text(
        '[[suppress]]\nfile = "a.json"\nfield = "spmd_sharding"\nrules = ["TE505"]\nreason = "x"\n'
        '[[suppress]]\nfile = "other.json"\nrules = ["TE505"]\nreason = "not linted now"\n'
    )
    unused = [f for f in report("a.json")["findings"] if f["rule"] == "TE902"]
    # A .tpuemb.toml's keys are at its top level: the finding points at `suppress[0]` there (it
    # once said `tool.tpuemb.suppress[0]`, a key that file does not have).
    assert [(f["file"], f["field"]) for f in unused] == [
        (str(project / ".tpuemb.toml"), "suppress[0]")
    ]


def test_unused_pyproject_suppression_points_at_its_key_under_tool_tpuemb(project: Path) -> None:
    (project / "a.json").write_text('{"mode": "TRAINING"}')
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.tpuemb]\nignore = ["TE410"]\n'
        '[[tool.tpuemb.suppress]]\nfile = "a.json"\nfield = "spmd_sharding"\nrules = ["TE505"]\n'
        'reason = "x"\n'
    )
    unused = [f for f in report("a.json")["findings"] if f["rule"] == "TE902"]
    assert [(f["file"], f["field"]) for f in unused] == [
        (str(project / "pyproject.toml"), "tool.tpuemb.suppress[0]")
    ]


def test_unused_configuration_suppression_is_reported_once_with_a_selection(
    project: Path,
) -> None:
    # --ignore narrows every configuration's rules; the files of one configuration still share
    # one engine, so a suppression that matched two files and suppressed nothing is one finding.
    for name in ("a.json", "b.json"):
        (project / name).write_text('{"mode": "TRAINING"}')
    (project / ".tpuemb.toml").write_text(
        '[[suppress]]\nfile = "*.json"\nrules = ["TE505"]\nreason = "x"\n'
    )
    findings = report("--ignore", "TE410", "a.json", "b.json")["findings"]
    assert [f["field"] for f in findings if f["rule"] == "TE902"] == ["suppress[0]"]
    assert not [f for f in findings if f["rule"] == "TE410"]


def test_configuration_suppression_needs_a_reason(project: Path) -> None:
    (project / ".tpuemb.toml").write_text('[[suppress]]\nfile = "a.json"\nrules = ["TE505"]\n')
    (project / "a.json").write_text("{}")
    result = invoke("check", "a.json")
    assert result.exit_code == 2
    assert "`suppress[0].reason`: a reason is required" in result.stderr


def test_add_suppressions_writes_a_baseline_that_silences_everything(project: Path) -> None:
    text = ZERO.replace("table_id: 0", "table_id: 3")  # + TE406 and TE407
    (project / "a.pbtxt").write_text(text)
    (project / "b.pb").write_bytes((CONFIGS / "custom_optimizer.pb").read_bytes())
    before = report("a.pbtxt", "b.pb")["findings"]
    assert {f["rule"] for f in before} == {"TE105", "TE406", "TE407", "TE201"}
    result = invoke("check", "--add-suppressions", "a.pbtxt", "b.pb")
    assert result.exit_code == 0, result.stderr
    assert "added 1 suppression" in result.stderr
    assert report("a.pbtxt", "b.pb")["findings"] == []
    lines = (project / "a.pbtxt").read_text().splitlines()
    assert lines[6].endswith(
        "  # tpuemb: ignore[TE105] baseline: added by tpuemb --add-suppressions"
    )
    assert "[[suppress]]" in (project / ".tpuemb.toml").read_text()
    # Running it again finds nothing left to suppress and changes nothing.
    snapshot = (project / "a.pbtxt").read_text(), (project / ".tpuemb.toml").read_text()
    assert invoke("check", "--add-suppressions", "a.pbtxt", "b.pb").exit_code == 0
    assert ((project / "a.pbtxt").read_text(), (project / ".tpuemb.toml").read_text()) == snapshot


def test_statistics(project: Path) -> None:
    (project / "a.pbtxt").write_text(ZERO.replace("table_id: 0", "table_id: 3"))
    result = invoke("check", "--statistics", "a.pbtxt")
    assert result.exit_code == 1
    assert result.stdout == (
        "    1  TE105      zero-learning-rate\n"
        "    1  TE406      unused-table\n"
        "    1  TE407      table-id-out-of-range\n"
    )


def test_statistics_marks_fixes_as_the_summary_counts_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `[*]`: fixed by --fix, exactly the findings the summary's "fixable with `--fix`" counts;
    # `[-]`: an unsafe fix (--unsafe-fixes). TE301's swap changes training, so it is `[-]`.
    monkeypatch.chdir(Path(__file__).parent.parent)
    result = invoke("check", "--statistics", "examples/")
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        "    1  TE102  [*] dynamic-tag-gap\n"
        "    1  TE202      adam-beta-out-of-range\n"
        "    1  TE301  [-] reversed-clipping-range\n"
        "    1  TE305  [*] ineffective-weight-decay-multiplier\n"
        "    1  TE406      unused-table\n"
        "    1  TE407      table-id-out-of-range\n"
        "    1  TE651      sparsecore-first-table-batch-size\n"
        "    1  TE761      keras-output-dim-mismatch\n"
        "    1  TE762      keras-unsupported-optimizer-option\n"
    )
    safe = sum(int(line.split()[0]) for line in result.stdout.splitlines() if "[*]" in line)
    summary = invoke("check", "--format", "concise", "examples/").stdout.splitlines()[-1]
    assert summary == (
        f"[*] {safe} findings fixable with `--fix` (1 hidden fix can be enabled with "
        "`--unsafe-fixes`)."
    )


def test_a_file_that_does_not_parse_reports_no_suppression_unused(project: Path) -> None:
    # The rules never ran on it: its suppressions (comments and configuration entries) suppressed
    # nothing only because nothing was checked. Reporting them unused offered to delete them.
    (project / "broken.pbtxt").write_text(
        "# tpuemb: ignore[TE301] known\ntable_descriptor {\n  name: 'a'\n"
    )
    (project / "broken.json").write_text('{"tableDescriptor": [}')
    (project / ".tpuemb.toml").write_text(
        '[[suppress]]\nfile = "broken.json"\nrules = ["TE403"]\nreason = "known"\n'
    )
    result = invoke("check", "--format", "concise", "broken.pbtxt", "broken.json")
    assert result.exit_code == 1
    assert [line.split(" ")[1] for line in result.stdout.splitlines()[:-1]] == ["TE001", "TE001"]
