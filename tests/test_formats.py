"""Every output format, byte for byte (tests/golden/), and SARIF against the SARIF 2.1.0 schema.

To refresh the golden files after an intended change, run
`TPUEMB_UPDATE_GOLDEN=1 pytest tests/test_formats.py`
and review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from tpuemb_cli import __version__
from tpuemb_cli.cli import main
from tpuemb_cli.formatters import Report, get, json_format
from tpuemb_cli.model.findings import Finding, Position, Severity
from tpuemb_cli.rules import RULESET_VERSION, all_rules

from .helpers import DATA

GOLDEN = Path(__file__).parent / "golden"
FORMATS = ["full", "concise", "json", "json-lines", "github"]


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q"], check=True)
    (tmp_path / "configs").mkdir()
    for name in ("model.pbtxt", "custom.pb"):
        shutil.copy(GOLDEN / name, tmp_path / "configs" / name)
    return tmp_path


def _compare(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("TPUEMB_UPDATE_GOLDEN"):
        path.write_text(actual)
    assert actual == path.read_text()


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden_output(repo: Path, fmt: str) -> None:
    result = invoke("check", "--format", fmt, "configs/model.pbtxt", "configs/custom.pb")
    assert result.exit_code == 1 and result.stderr == ""
    _compare(f"{fmt}.txt", result.stdout)


DIFF_RULES = "tpuemb_cli.rules.diff."


def test_sarif_golden(repo: Path) -> None:
    result = invoke("check", "--format", "sarif", "configs/model.pbtxt", "configs/custom.pb")
    # The repository root is the test's temporary folder: the one part that cannot be golden.
    root = repo.resolve().as_uri() + "/"
    assert root in result.stdout
    _compare("sarif.txt", result.stdout.replace(root, "file:///REPO/"))


def test_sarif_validates_and_is_what_github_reads(repo: Path) -> None:
    (repo / "configs" / "sub").mkdir()
    result = invoke("check", "--format", "sarif", "configs/model.pbtxt", "configs/custom.pb")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(log, schema)
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("tpuemb", __version__)
    assert driver["properties"]["rulesetVersion"] == RULESET_VERSION
    # The rules with results, in the catalog's order (issue 38: each rule's documentation is
    # in the log; all of them made a few findings' log hundreds of kilobytes).
    found = [rule.code for rule in all_rules() if rule.code in {"TE406", "TE105", "TE407", "TE201"}]
    assert [rule["id"] for rule in driver["rules"]] == found
    rule = driver["rules"][found.index("TE407")]
    assert rule["name"] == "table-id-out-of-range"
    assert rule["shortDescription"]["text"] == "A feature's table_id does not name a table."
    assert rule["help"]["markdown"].startswith("A feature's table_id does not name a table.")
    assert "## What TensorFlow does" in rule["help"]["markdown"]
    assert rule["defaultConfiguration"] == {"level": "error"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["TE406", "TE105", "TE407", "TE201"]
    table_id = results[2]
    assert table_id["level"] == "error"
    assert table_id["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "configs/model.pbtxt", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 15, "startColumn": 52, "endLine": 15, "endColumn": 63},
    }
    assert table_id["locations"][0]["logicalLocations"] == [
        {"fullyQualifiedName": "feature_descriptor[0].table_id", "kind": "member"}
    ]
    assert results[1]["level"] == "warning"
    binary = results[3]["locations"][0]["physicalLocation"]
    assert binary["artifactLocation"]["uri"] == "configs/custom.pb"
    fingerprints = {r["partialFingerprints"]["tpuembFinding/v1"] for r in results}
    assert len(fingerprints) == 4


def test_sarif_fingerprint_survives_moved_lines(repo: Path) -> None:
    def fingerprints() -> list[str]:
        log = json.loads(invoke("check", "--format", "sarif", "configs/model.pbtxt").stdout)
        return [r["partialFingerprints"]["tpuembFinding/v1"] for r in log["runs"][0]["results"]]

    before = fingerprints()
    path = repo / "configs" / "model.pbtxt"
    path.write_text("# a new first line\n" + path.read_text())
    assert fingerprints() == before


def test_github_escaping_and_the_annotation_limit() -> None:
    def finding(severity: Severity, line: int) -> Finding:
        return Finding(
            "dir,x/a:b.pbtxt",
            "TE407",
            "table-id-out-of-range",
            severity,
            "50% done\r\nnext: line",
            ("a",),
            "",
            Position(line, 1, line, 2),
        )

    findings = [finding(Severity.WARNING, n) for n in range(1, 13)] + [
        finding(Severity.ERROR, n) for n in range(1, 15)
    ]
    lines = get("github")(Report(findings, 1), False).splitlines()
    assert lines[0] == (
        "::error file=dir%2Cx/a%3Ab.pbtxt,line=1,col=1,endLine=1,endColumn=2,"
        # A line break in a message is shown escaped, as every control character in human
        # output is; the workflow command's own escaping (%25) still applies.
        "title=TE407 table-id-out-of-range::50%25 done\\r\\nnext: line (a)"
    )
    assert all(line.startswith("::error ") for line in lines[:14])
    assert all(line.startswith("::warning ") for line in lines[14:26])
    assert lines[-1] == (
        "::notice title=tpuemb::4 errors and 2 warnings not shown: GitHub shows 10 error and 10 "
        "warning annotations per step. Run tpuemb locally or upload SARIF for the full list."
    )


def test_format_defaults(repo: Path) -> None:
    args = ("check", "configs/model.pbtxt")
    assert invoke(*args, env={"GITHUB_ACTIONS": "true"}).stdout.startswith("::error ")
    assert invoke(*args, env={"TPUEMB_FORMAT": "json-lines"}).stdout.startswith('{"file"')
    assert invoke(*args, env={"GITHUB_ACTIONS": ""}).stdout.startswith("configs/model.pbtxt:2:1:")
    assert invoke(*args, "--format", "text").stdout.startswith("TE406 [error] unused-table")


def test_color_only_on_a_terminal_and_never_with_no_color(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    finding = Finding("a.pbtxt", "TE105", "zero-learning-rate", Severity.WARNING, "m", (), "")
    colored = get("concise")(Report([finding], 1), True)
    assert "\x1b[33mwarning\x1b[0m" in colored
    assert "\x1b[" not in get("concise")(Report([finding], 1), False)
    from tpuemb_cli.cli.common import color as _color

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert _color(Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _color(Terminal())


def test_several_outputs_in_one_run(repo: Path) -> None:
    result = invoke(
        "check",
        "--format",
        "github",
        "--format",
        "sarif",
        "--output-file",
        "out/report.sarif",
        "--format",
        "json",
        "--output-file",
        "report.json",
        "configs",
    )
    assert result.exit_code == 2  # the folder for the SARIF file does not exist
    assert "out/report.sarif: cannot write the report" in result.stderr
    (repo / "out").mkdir()
    result = invoke(
        "check",
        "--format",
        "github",
        "--format",
        "sarif",
        "--output-file",
        "out/report.sarif",
        "--format",
        "json",
        "--output-file",
        "report.json",
        "configs",
    )
    assert result.exit_code == 1, result.stderr
    assert result.stdout.startswith("::error ")
    sarif: dict[str, Any] = json.loads((repo / "out" / "report.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == 4
    assert json.loads((repo / "report.json").read_text())["summary"]["errors"] == 3
    two_to_stdout = invoke("check", "--format", "json", "--format", "sarif", "configs")
    assert (
        two_to_stdout.exit_code == 2 and "only one format can go to stdout" in two_to_stdout.stderr
    )


def test_sarif_names_a_file_whose_name_is_not_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name's undecodable byte is a surrogate in Python's str: percent-encoded as the byte,
    # where quoting it as UTF-8 was an internal error and no report.
    name = os.fsdecode(b"b\xff.pbtxt")
    (tmp_path / name).write_text("mode: TRAINNG\n")
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "--format", "sarif", ".")
    assert (result.exit_code, result.stderr_bytes) == (1, b"")
    (run,) = json.loads(result.stdout_bytes)["runs"]
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    }
    assert uris == {"b%FF.pbtxt"}


# What reports hold, and what json's writing of them could trip on: NUL (the separator `dumps`
# writes between items), braces in strings (it splits flat dicts at `}` NUL `{`), newlines in
# strings, non-ASCII, NaN, nested and empty containers, keys that are not strings, tuples, and
# subclasses of int.
AWKWARD_JSON: list[object] = [
    {"changes": [{"a": "}\x00{", "b": 1}, {"c": "{\n}", "d": None}], "summary": {"x": 0}},
    [{"\x00": "x}"}, {"}": "{"}, {"k": float("nan"), "i": float("-inf"), "f": -0.0}],
    [{"a": 1}, {}],
    [{"a": 1}, {"b": [1, {"c": "é\u2028"}]}],
    {"a": {}, "b": [], "c": [[]], "d": ({"e": 1},), 1: "key", "f": Severity.ERROR},
    {"rule": Severity.ERROR, "n": 10**30, "t": True},
    [],
    {},
    "\ud800",
]


@pytest.mark.parametrize("value", AWKWARD_JSON)
def test_json_is_written_as_json_dumps_writes_it(value: object) -> None:
    assert json_format.dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)


JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


@settings(max_examples=100, deadline=None)
@given(JSON_VALUES | st.lists(st.dictionaries(st.text(), JSON_SCALARS, min_size=1), min_size=1))
@pytest.mark.slow
def test_any_json_is_written_as_json_dumps_writes_it(value: object) -> None:
    assert json_format.dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)
