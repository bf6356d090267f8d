"""The baseline (``check --add-suppressions``): what it writes, where, and what it leaves alone.

Each test reproduces a case a hostile review found on the earlier baseline (issue 12): a
pyproject.toml made invalid, a `# proto-message:` header broken, parse errors "passing", JSON
entries written where they never apply, a comment added on every run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

REASON = "baseline: added by tpuemb --add-suppressions"
ZERO = CLEAN.replace("constant: 0.05 }", "constant: 0 }")  # TE105 on line 7
NO_MODE = ZERO.replace("mode: TRAINING\n", "")  # + TE501, a finding of the whole file (at 1:1)
ZERO_JSON = (
    '{"tableDescriptor": [{"name": "t", "vocabularySize": 8, "dimension": 4,'
    ' "optimizationParameters": {"adagrad": {}, "learningRate": {"constant": 0}}}],'
    ' "mode": "TRAINING", "numHosts": 1, "numTensorCores": 1,'
    ' "featureDescriptor": [{"tableId": 0, "inputShape": [4]}]}'
)
ZERO_FIELD = "table_descriptor[0].optimization_parameters.learning_rate.constant"
CLEAN_RUN = "All checks passed (1 file checked).\n"


def invoke(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def outcome(result: Result) -> tuple[int, str, str]:
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_an_inline_suppress_array_in_pyproject_grows_in_place(project: Path) -> None:
    # The earlier baseline appended [[tool.tpuemb.suppress]] after `suppress = [...]`: a key
    # defined twice, so pip, ruff and tpuemb itself refused the file.
    pyproject = project / "pyproject.toml"
    before = (
        '[project]\nname = "x"  # the package\n\n'
        '[tool.tpuemb]\nignore = ["TE410"]  # kept\n'
        'suppress = [{file = "old.json", rules = ["TE105"], reason = "frozen"}]\n\n'
        "[tool.ruff]\nline-length = 100\n"
    )
    pyproject.write_text(before)
    (project / "a.json").write_text(ZERO_JSON)
    assert outcome(invoke("check", "--add-suppressions", "a.json")) == (
        0,
        "",
        f"tpuemb: {pyproject}: added 1 suppression\n",
    )
    entry = f'{{file = "a.json", field = "{ZERO_FIELD}", rules = ["TE105"], reason = "{REASON}"}}'
    assert pyproject.read_text() == before.replace(
        'reason = "frozen"}]', f'reason = "frozen"}}, {entry}]'
    )
    settings = tomllib.loads(pyproject.read_text())
    assert settings["project"] == {"name": "x"} and settings["tool"]["ruff"] == {"line-length": 100}
    assert settings["tool"]["tpuemb"]["ignore"] == ["TE410"]
    assert outcome(invoke("check", "a.json")) == (0, CLEAN_RUN, "")


def test_dotted_keys_under_tool_keep_their_table(project: Path) -> None:
    # tomlkit writes an array of tables here as [[tpuemb.suppress]], outside [tool]: the entry
    # would land in a table nobody reads. The result is read back before it is written, and the
    # inline spelling used instead.
    pyproject = project / "pyproject.toml"
    pyproject.write_bytes(b'[tool]\r\ntpuemb.ignore = ["TE410"]\r\n')
    (project / "a.json").write_text(ZERO_JSON)
    assert invoke("check", "--add-suppressions", "a.json").exit_code == 0
    assert pyproject.read_bytes() == (
        b'[tool]\r\ntpuemb.ignore = ["TE410"]\r\ntpuemb.suppress = [\r\n'
        b'    {file = "a.json", field = "' + ZERO_FIELD.encode() + b'", rules = ["TE105"], '
        b'reason = "' + REASON.encode() + b'"},\r\n]\r\n'
    )
    assert outcome(invoke("check", "a.json")) == (0, CLEAN_RUN, "")


def test_whole_file_findings_get_a_file_ignore_after_the_header(project: Path) -> None:
    # A whole-file finding sits at 1:1. The comment used to go at the end of line 1: it broke a
    # `# proto-message:` header, and after a licence comment it applied to the next field.
    header = (
        "# proto-file: tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto\n"
        "# proto-message: TPUEmbeddingConfiguration\n"
    )
    licence = "# Copyright 2025 The Authors.\n# Licensed under the Apache License 2.0.\n\n"
    (project / "h.txtpb").write_text(header + NO_MODE)
    (project / "l.pbtxt").write_text(licence + NO_MODE)
    (project / "bare.pbtxt").write_text(NO_MODE)
    files = ("h.txtpb", "l.pbtxt", "bare.pbtxt")
    assert outcome(invoke("check", "--add-suppressions", *files)) == (
        0,
        "",
        "tpuemb: added suppressions to 3 files\n",
    )
    directive = f"# tpuemb: file-ignore[TE501] {REASON}\n"
    body = NO_MODE.replace("constant: 0 }", f"constant: 0 }}  # tpuemb: ignore[TE105] {REASON}")
    assert (project / "h.txtpb").read_text() == header + directive + body
    assert (project / "l.pbtxt").read_text() == licence + directive + body
    assert (project / "bare.pbtxt").read_text() == directive + body
    assert outcome(invoke("check", *files)) == (0, "All checks passed (3 files checked).\n", "")


def test_bom_and_crlf_are_kept_and_a_second_run_changes_nothing(project: Path) -> None:
    text = ("# proto-message: TPUEmbeddingConfiguration\n" + NO_MODE).replace("\n", "\r\n")
    (project / "a.txtpb").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert invoke("check", "--add-suppressions", "a.txtpb").exit_code == 0
    written = (project / "a.txtpb").read_bytes()
    assert written.startswith(
        b"\xef\xbb\xbf# proto-message: TPUEmbeddingConfiguration\r\n# tpuemb:"
    )
    assert written.count(b"\r\n") == text.count("\r\n") + 1 and b"\n" not in written.replace(
        b"\r\n", b""
    )
    before = snapshot(project)
    assert outcome(invoke("check", "--add-suppressions", "a.txtpb")) == (0, "", "")
    assert snapshot(project) == before
    assert outcome(invoke("check", "a.txtpb")) == (0, CLEAN_RUN, "")


def test_parse_problems_and_suppression_problems_are_left_reported(project: Path) -> None:
    # A parse problem suppressed made a config TensorFlow refuses "pass"; an unused suppression
    # got an `ignore[TE902]` that was itself unused, so every run added one more.
    text = ZERO + "bogus_field: 1\n# tpuemb: ignore[TE406] the table went away\n"
    (project / "a.pbtxt").write_text(text)
    report = (
        "a.pbtxt:15:1: TE002 [error] TPUEmbeddingConfiguration has no field `bogus_field`\n"
        "a.pbtxt:16:1: TE902 [*] [warning] this suppression of TE406 suppresses nothing\n"
        "Found 1 error, 1 warning in 1 file (1 file checked).\n"
        "[*] 1 finding fixable with `--fix`.\n"
    )
    notes = (
        "tpuemb: a.pbtxt: not suppressed: TE002: parse problems are never suppressed: fix the "
        "file\n"
        "tpuemb: a.pbtxt: not suppressed: TE902: a suppression's own problems are not suppressed: "
        "correct it (`--fix` removes unused ones)\n"
    )
    assert outcome(invoke("check", "--add-suppressions", "a.pbtxt")) == (
        1,
        report,
        notes + "tpuemb: added suppressions to 1 file\n",
    )
    expected = text.replace("constant: 0 }", f"constant: 0 }}  # tpuemb: ignore[TE105] {REASON}")
    assert (project / "a.pbtxt").read_text() == expected
    # The second run has nothing left to suppress: same report, same file.
    assert outcome(invoke("check", "--add-suppressions", "a.pbtxt")) == (1, report, notes)
    assert (project / "a.pbtxt").read_text() == expected
    assert outcome(invoke("check", "a.pbtxt")) == (1, report, "")


def test_json_entries_go_beside_the_file_when_nothing_governs_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # They used to go to ./.tpuemb.toml of the current folder, which never applies to a file
    # elsewhere; the run said it had worked.
    (project / "repo" / "configs").mkdir(parents=True)
    (project / "elsewhere").mkdir()
    (project / "repo" / "configs" / "a.json").write_text(ZERO_JSON)
    monkeypatch.chdir(project / "elsewhere")
    config = project / "repo" / "configs" / ".tpuemb.toml"
    assert outcome(invoke("check", "--add-suppressions", "../repo/configs/a.json")) == (
        0,
        "",
        f"tpuemb: {config}: added 1 suppression\n",
    )
    assert list((project / "elsewhere").iterdir()) == []
    assert config.read_text() == (
        f'[[suppress]]\nfile = "a.json"\nfield = "{ZERO_FIELD}"\nrules = ["TE105"]\n'
        f'reason = "{REASON}"\n'
    )
    assert outcome(invoke("check", "../repo/configs/a.json")) == (0, CLEAN_RUN, "")
    monkeypatch.chdir(project / "repo")
    assert outcome(invoke("check", "configs")) == (0, CLEAN_RUN, "")


def test_json_entries_go_to_the_nearest_configuration_with_paths_relative_to_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "repo" / "configs" / "serving").mkdir(parents=True)
    (project / "elsewhere").mkdir()
    pyproject = project / "repo" / "pyproject.toml"
    pyproject.write_text('[tool.tpuemb]\nignore = ["TE410"]\n')
    (project / "repo" / "configs" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    (project / "repo" / "configs" / "serving" / "a.json").write_text(ZERO_JSON)
    monkeypatch.chdir(project / "elsewhere")
    name = "../repo/configs/serving/a.json"
    # The same file named twice is one set of entries.
    assert outcome(invoke("check", "--add-suppressions", name, name)) == (
        0,
        "",
        f"tpuemb: {pyproject}: added 1 suppression\n",
    )
    assert pyproject.read_text() == (
        '[tool.tpuemb]\nignore = ["TE410"]\n\n'
        f'[[tool.tpuemb.suppress]]\nfile = "configs/serving/a.json"\nfield = "{ZERO_FIELD}"\n'
        f'rules = ["TE105"]\nreason = "{REASON}"\n'
    )
    assert outcome(invoke("check", name)) == (0, CLEAN_RUN, "")
    before = snapshot(project)
    assert outcome(invoke("check", "--add-suppressions", name)) == (0, "", "")
    assert snapshot(project) == before


def test_nothing_is_written_for_stdin_or_under_isolated(project: Path) -> None:
    (project / "a.json").write_text(ZERO_JSON)
    report = (
        "a.json:1:132: TE105 [warning] the learning rate is 0, so this table's embeddings never "
        "change during training\nFound 1 warning in 1 file (1 file checked).\n"
    )
    assert outcome(invoke("check", "--isolated", "--add-suppressions", "a.json")) == (
        2,
        report,
        "tpuemb: a.json: not suppressed: --isolated reads no configuration, where the "
        "suppressions of JSON, YAML and binary files live\n",
    )
    result = invoke(
        "check", "--add-suppressions", "--stdin-filename", "a.json", "-", input=ZERO_JSON
    )
    assert outcome(result) == (
        2,
        report,
        "tpuemb: a.json: suppressions cannot be written to standard input\n",
    )
    assert sorted(p.name for p in project.iterdir()) == ["a.json"]
