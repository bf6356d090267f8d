"""`tpuemb diff --against-checkpoint CKPT FILE` end to end: the checkpoint's index read
without TensorFlow, the changes as findings through the file's settings (acknowledged by its
comments), and the errors a user can make (exit 2, never a traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from . import checkpoint_files as files
from .helpers import CLEAN


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    # What the mid-level API saves for CLEAN's table: `video` (1000, 16) and Adagrad's slot.
    variables = files.embedding({"video": (1000, 16)}, {"video": ["accumulators"]})
    (tmp_path / "ckpt-1.index").write_bytes(files.table(files.bundle(variables)))
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-1"\n')
    return tmp_path


def test_the_config_it_was_written_under_restores(here: Path) -> None:
    (here / "model.pbtxt").write_text(CLEAN)
    for where in ("ckpt-1.index", "ckpt-1", "."):
        result = invoke("diff", "--format", "concise", "--against-checkpoint", where, "model.pbtxt")
        assert (result.exit_code, result.stdout) == (0, "No changes (1 file pair compared).\n")


def test_a_new_dimension_fails_the_restore_and_can_be_acknowledged(here: Path) -> None:
    (here / "model.pbtxt").write_text(CLEAN.replace("dimension: 16", "dimension: 32"))
    result = invoke("diff", "--format", "json", "--against-checkpoint", ".", "model.pbtxt")
    assert result.exit_code == 1
    changes = json.loads(result.stdout)["changes"]
    assert [(c["rule"], c["field"], c["line"]) for c in changes] == [
        ("TE951", "table_descriptor[0].dimension", 4)
    ]
    (here / "model.pbtxt").write_text(
        CLEAN.replace("dimension: 16", "dimension: 32  # tpuemb: ignore[restore-error] retrained")
    )
    result = invoke("diff", "--format", "concise", "--against-checkpoint", ".", "model.pbtxt")
    assert (result.exit_code, result.stdout) == (0, "No changes (1 file pair compared).\n")


def test_a_new_optimizer_slot_starts_afresh(here: Path) -> None:
    (here / "model.pbtxt").write_text(CLEAN.replace("adagrad {}", "adam {}"))
    result = invoke("diff", "--format", "json", "--against-checkpoint", ".", "model.pbtxt")
    kinds = [c["kind"] for c in json.loads(result.stdout)["changes"]]
    assert result.exit_code == 1
    assert "silent-reinit" in kinds and "orphaned-state" in kinds


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--against-checkpoint", "nope", "model.pbtxt"], "tpuemb: error: nope: "),
        (
            ["--against-checkpoint", ".", "--checkpoint-prefix", "embeding", "model.pbtxt"],
            "did you mean `embedding`?",
        ),
        (["--against-checkpoint", ".", "a.pbtxt", "b.pbtxt"], "takes one config or spec"),
        (["--checkpoint-prefix", "x", "a.pbtxt", "b.pbtxt"], "goes with --against-checkpoint"),
        (["--against", "HEAD", "--against-checkpoint", ".", "a"], "contradict each other"),
    ],
    ids=["missing", "prefix", "two-files", "prefix-alone", "both"],
)
def test_mistakes_exit_2(here: Path, args: list[str], said: str) -> None:
    (here / "model.pbtxt").write_text(CLEAN)
    result = invoke("diff", *args)
    assert result.exit_code == 2
    assert said in result.stderr


def test_a_truncated_index_is_a_clear_error(here: Path) -> None:
    (here / "model.pbtxt").write_text(CLEAN)
    data = (here / "ckpt-1.index").read_bytes()
    (here / "ckpt-1.index").write_bytes(data[: len(data) // 2])
    result = invoke("diff", "--against-checkpoint", "ckpt-1.index", "model.pbtxt")
    assert (result.exit_code, result.stdout) == (
        2,
        "No changes (0 file pairs compared; 1 file pair could not be compared).\n",
    )
    assert result.stderr.startswith("tpuemb: error: ") and "Traceback" not in result.stderr
