"""Which inputs the command line names: an empty argument is an error, a file named twice is
linted once."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN

ZERO = CLEAN.replace("constant: 0.05 }", "constant: 0 }")  # TE105 on line 7
FINDING = (
    "TE105 [warning] the learning rate is 0, so this table's embeddings never change during "
    "training\n"
)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "a.pbtxt").write_text(ZERO)
    return tmp_path


def test_an_empty_argument_is_not_the_current_directory(project: Path) -> None:
    # Path("") is "."; `tpuemb check "$UNSET"` linted the current directory.
    for command in (["check"], ["explain"]):
        result = invoke(*command, "")
        assert (result.exit_code, result.stderr) == (
            2,
            "tpuemb: error: '': no such file or directory\n",
        )
    result = invoke("check", "", "configs/a.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        f"configs/a.pbtxt:7:21: {FINDING}"
        "Found 1 warning in 1 file (1 file checked; 1 input could not be read).\n",
        "tpuemb: error: '': no such file or directory\n",
    )


@pytest.mark.parametrize(
    "names",
    [
        ("configs/a.pbtxt", "configs/a.pbtxt"),
        ("configs/a.pbtxt", "./configs/a.pbtxt"),
        ("configs/a.pbtxt", "configs/../configs/a.pbtxt"),
        ("configs/a.pbtxt", "configs"),
        ("configs", "configs/a.pbtxt"),
        ("configs", "./configs/"),
    ],
)
def test_a_file_named_twice_is_linted_once(project: Path, names: tuple[str, str]) -> None:
    result = invoke("check", "--format", "concise", *names)
    first = "configs/a.pbtxt" if names[0] == "configs" else names[0]
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        f"{first}:7:21: {FINDING}Found 1 warning in 1 file (1 file checked).\n",
        "",
    )


def test_a_json_file_named_twice_gets_one_baseline_entry(project: Path) -> None:
    (project / ".tpuemb.toml").write_text("")
    (project / "configs" / "b.json").write_text(
        '{"tableDescriptor": [{"name": "t", "vocabularySize": 8, "dimension": 4,'
        ' "optimizationParameters": {"adagrad": {}, "learningRate": {"constant": 0},'
        ' "gradientAccumulationStatus": "ENABLED"}}], "mode": "TRAINING", "numHosts": 1,'
        ' "numTensorCores": 8, "featureDescriptor": [{"tableId": 0, "inputShape": [4]}]}'
    )
    result = invoke("check", "--add-suppressions", "configs/b.json", "./configs/b.json")
    assert result.exit_code == 0, result.output
    assert (project / ".tpuemb.toml").read_text().count("[[suppress]]") == 1
