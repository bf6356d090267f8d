"""`tpuemb diff --against-checkpoint CKPT FILE` end to end: the checkpoint's index read
without TensorFlow, the changes as findings through the file's settings (acknowledged by its
comments), and the errors a user can make (exit 2, never a traceback)."""

from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Sequence
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
    files.save(tmp_path / "ckpt-1.index", files.bundle(variables))
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
        (["--against-checkpoint", ".", "a.pbtxt", "b.pbtxt"], "takes one file"),
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
        "Nothing compared (1 file pair could not be compared).\n",
    )
    assert result.stderr.startswith("tpuemb: error: ") and "Traceback" not in result.stderr


def _two_shards(here: Path, missing: Sequence[int] = (), num_shards: int = 2) -> None:
    variables = files.embedding({"video": (1000, 16)}, {"video": ["accumulators"]})
    entries = files.placed(files.bundle(variables, num_shards=num_shards), 2)
    files.save(here / "ckpt-1.index", entries, missing)
    (here / "model.pbtxt").write_text(CLEAN)


def test_a_checkpoint_whose_data_files_are_all_there_restores(here: Path) -> None:
    _two_shards(here)
    result = invoke("diff", "--format", "concise", "--against-checkpoint", ".", "model.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "No changes (1 file pair compared).\n",
        "",
    )


UNCOMPARED = "Nothing compared (1 file pair could not be compared).\n"


def test_a_missing_data_file_is_a_broken_checkpoint(here: Path) -> None:
    # TensorFlow's restore fails with NotFoundError: the index alone does not restore.
    _two_shards(here, missing=[1])
    result = invoke("diff", "--against-checkpoint", ".", "model.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        "tpuemb: error: ckpt-1.index: names the data file ckpt-1.data-00001-of-00002, which "
        "cannot be read (No such file or directory): the checkpoint is incomplete and does not "
        "restore\n",
    )


def test_a_data_file_shorter_than_its_entries_reach_is_a_broken_checkpoint(here: Path) -> None:
    _two_shards(here)
    data = here / "ckpt-1.data-00000-of-00002"
    data.write_bytes(data.read_bytes()[:-1])
    result = invoke("diff", "--against-checkpoint", "ckpt-1", "model.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        "tpuemb: error: ckpt-1.index: its entries read 64000 bytes of the data file "
        "ckpt-1.data-00000-of-00002, which holds 63999: a truncated checkpoint, which does not "
        "restore\n",
    )


def test_a_header_claiming_two_billion_shards_is_no_loop(here: Path) -> None:
    _two_shards(here)  # its data files -of-00002; the index rewritten to claim 2**31 - 1
    variables = files.embedding({"video": (1000, 16)}, {"video": ["accumulators"]})
    entries = files.placed(files.bundle(variables, num_shards=2**31 - 1), 2)
    (here / "ckpt-1.index").write_bytes(files.table(entries))
    # The data files the entries name, as the header names them, are not there: said at once.
    started = time.monotonic()
    result = invoke("diff", "--against-checkpoint", ".", "model.pbtxt")
    assert time.monotonic() - started < 5
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        "tpuemb: error: ckpt-1.index: names the data file ckpt-1.data-00000-of-2147483647, "
        "which cannot be read (No such file or directory): the checkpoint is incomplete and "
        "does not restore\n",
    )


def test_an_entry_in_a_shard_the_header_does_not_count_is_a_corrupt_index(here: Path) -> None:
    _two_shards(here, num_shards=1)  # the entries dealt over 2 files, the header says 1
    result = invoke("diff", "--against-checkpoint", ".", "model.pbtxt")
    assert (result.exit_code, result.stdout) == (2, UNCOMPARED)
    assert result.stderr.startswith("tpuemb: error: ckpt-1.index: the entry of ")
    assert result.stderr.endswith(" is in data file 1, but the header counts 1: a corrupt index\n")


# -- the `checkpoint` state file naming a path that cannot be looked up (issue 36) -------------


def _state(here: Path, named: str) -> Result:
    (here / "model.pbtxt").write_text(CLEAN)
    (here / "checkpoint").write_text(f'model_checkpoint_path: "{named}"\n')
    return invoke("diff", "--against-checkpoint", ".", "model.pbtxt")


@pytest.mark.parametrize(
    ("named", "shown"),
    [
        ("a" * 100_000, "'" + "a" * 39 + "..." + "a" * 19 + "' (100,002 characters)"),
        ("../" * 5_000 + "x", "'" + "../" * 13 + "..." + "../" * 6 + "x' (15,003 characters)"),
    ],
    ids=["name-too-long", "path-too-long"],
)
def test_a_state_file_naming_a_path_too_long_is_a_clear_error(
    here: Path, named: str, shown: str
) -> None:
    result = _state(here, named)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        f"tpuemb: error: checkpoint: names {shown} as the latest checkpoint, which cannot be "
        "looked up: File name too long (the path is longer than the system looks up)\n",
    )


def test_a_state_file_naming_a_loop_of_links_is_a_clear_error(here: Path) -> None:
    (here / "loop.index").symlink_to("loop.index")
    result = _state(here, "loop")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        "tpuemb: error: checkpoint: names 'loop' as the latest checkpoint, which cannot be "
        "looked up: Too many levels of symbolic links\n",
    )


@pytest.mark.parametrize(
    ("named", "index"),
    [("model.pbtxt/ckpt-1", "model.pbtxt/ckpt-1.index"), ("folder", "folder.index")],
    ids=["not-a-directory", "is-a-directory"],
)
def test_a_state_file_naming_no_file_is_a_clear_error(here: Path, named: str, index: str) -> None:
    (here / "folder.index").mkdir()
    result = _state(here, named)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        f"tpuemb: error: checkpoint: names {named!r} as the latest checkpoint, but {index} is "
        "no file\n",
    )


def test_a_state_file_naming_a_path_that_cannot_be_searched_is_a_clear_error(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root searches every folder: EACCES as a user meets it, from the lookup itself.
    looked_up = Path.stat

    def stat(path: Path, **kwargs: bool) -> os.stat_result:
        if path.name == "ckpt-1.index":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return looked_up(path, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    result = _state(here, "ckpt-1")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        "tpuemb: error: checkpoint: names 'ckpt-1' as the latest checkpoint, which cannot be "
        "looked up: Permission denied\n",
    )


def test_a_checkpoint_named_too_long_is_a_clear_error(here: Path) -> None:
    (here / "model.pbtxt").write_text(CLEAN)
    result = invoke("diff", "--against-checkpoint", "c" * 300, "model.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        f"tpuemb: error: {'c' * 40}...{'c' * 20} (300 characters): File name too long (the path "
        "is longer than the system looks up)\n",
    )


def test_a_file_with_no_checkpoint_layout_cannot_be_compared_with_a_checkpoint(here: Path) -> None:
    # Named against a checkpoint, it is no file to skip: "No changes" would pass the gate.
    (here / "adam.pbtxt").write_text(
        "# proto-message: OptimizationParameters\nadam {}\nlearning_rate { constant: 0.1 }\n"
    )
    result = invoke("diff", "--against-checkpoint", ".", "adam.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        "tpuemb: error: adam.pbtxt: cannot compare: holds OptimizationParameters, which has no "
        "checkpoint layout to compare\n",
    )


def test_a_checkpoint_named_through_a_loop_of_links_is_a_clear_error(here: Path) -> None:
    (here / "model.pbtxt").write_text(CLEAN)
    (here / "loop").symlink_to("loop")
    result = invoke("diff", "--against-checkpoint", "loop", "model.pbtxt")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        UNCOMPARED,
        "tpuemb: error: loop: Too many levels of symbolic links\n",
    )
