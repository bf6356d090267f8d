"""A large pair's two sides are loaded at once, the new one in a forked process, and the diff is
exactly the diff of one process: every format, byte for byte, suppressions and positions too."""

from __future__ import annotations

import os
import pickle
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.load import Skipped, load_input
from tpuemb_cli.workspace import diffing, parallel

EXAMPLES = Path(__file__).parent.parent / "examples"

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")


def _config(prefix: str, tables: int) -> str:
    lines = []
    for index in range(tables):
        lines.append(
            f'table_descriptor {{\n  name: "{prefix}{index}"\n  vocabulary_size: {1000 + index}\n'
            f"  dimension: {8 if index % 5 else 16}\n"
            "  optimization_parameters { adagrad {} learning_rate { constant: 0.1 } }\n}"
        )
        lines.append(f'feature_descriptor {{ name: "f{index}" table_id: {index} input_shape: 4 }}')
    lines.append("mode: TRAINING\nnum_hosts: 1\nnum_tensor_cores: 8\n")
    return "\n".join(lines)


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old.pbtxt", tmp_path / "new.pbtxt"
    old.write_text(_config("t", 60))
    # Renamed, resized, one rename acknowledged by a comment, one table gone.
    text = _config("t", 59).replace('"t3"', '"u3"').replace('"t7"', '"u7"  # tpuemb: ignore[TE9]')
    new.write_text(text.replace("vocabulary_size: 1020\n", "vocabulary_size: 2020\n"))
    return old, new


def _diff(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["diff", "--isolated", *args])
    return result.exit_code, result.output


def _forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    forks: list[int] = []
    fork = parallel._fork

    def counted(function: Any, share: Any) -> tuple[int, int]:
        forks.append(len(share))
        return fork(function, share)

    monkeypatch.setattr(parallel, "_fork", counted)
    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    return forks


@needs_fork
@pytest.mark.parametrize("fmt", ["full", "json", "sarif", "github"])
def test_two_processes_diff_as_one_does(
    pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    old, new = (str(path) for path in pair)
    monkeypatch.setattr(diffing, "PARALLEL_BYTES", 10**9)
    alone = _diff("--format", fmt, old, new)
    forks = _forks(monkeypatch)
    monkeypatch.setattr(diffing, "PARALLEL_BYTES", 1000)
    assert _diff("--format", fmt, old, new) == alone
    assert forks == [1]  # the new side, in a forked process
    assert alone[0] == 1 and "`u3`" in alone[1]


@needs_fork
def test_a_small_pair_is_loaded_here(
    pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    forks = _forks(monkeypatch)
    assert pair[0].stat().st_size < diffing.PARALLEL_BYTES
    assert _diff(*(str(path) for path in pair))[0] == 1
    assert forks == []


@needs_fork
def test_a_side_the_worker_cannot_send_is_loaded_here(
    pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = (str(path) for path in pair)
    alone = _diff("--format", "json", old, new)
    forks = _forks(monkeypatch)
    monkeypatch.setattr(diffing, "PARALLEL_BYTES", 1000)
    parent, loaded = os.getpid(), diffing._loaded

    def killed(version: diffing.Version | None) -> object:
        if os.getpid() != parent:
            os._exit(9)  # the worker dies: its side is loaded again here
        return loaded(version)

    monkeypatch.setattr(diffing, "_loaded", killed)
    assert _diff("--format", "json", old, new) == alone
    assert forks == [1]


def test_no_fork_while_another_thread_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    assert parallel.can_fork() == hasattr(os, "fork")
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not parallel.can_fork()
    finally:
        stop.set()
        thread.join()
    monkeypatch.setattr(parallel, "available_cpus", lambda: 1)
    assert not parallel.can_fork()


@pytest.mark.parametrize(
    "name",
    [
        "ranking_model.pbtxt",
        "ranking_model.json",
        "ranking_model.pb",
        "recommender.spec.yaml",
        "mistakes/common_mistakes.pbtxt",
    ],
)
def test_a_document_comes_back_from_a_worker_whole(name: str) -> None:
    # What a worker sends: the document pickled, its source map still able to place any field.
    path = EXAMPLES / name
    document = load_input(path.read_bytes(), str(path))
    copy = pickle.loads(pickle.dumps(document, pickle.HIGHEST_PROTOCOL))
    assert not isinstance(document, Skipped) and not isinstance(copy, Skipped)
    assert copy.message == document.message
    assert copy.problems == document.problems and copy.comments == document.comments
    if document.source_map is None:
        assert copy.source_map is None
        return
    assert copy.source_map is not None
    paths = [("table_descriptor", 0, "name"), ("feature_descriptor", 1), ("tables", 0), ()]
    assert [copy.source_map.position(p) for p in paths] == [
        document.source_map.position(p) for p in paths
    ]
