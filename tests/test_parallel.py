"""Linting in several processes gives exactly what one process gives, even when a worker fails."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.workspace import parallel

EXAMPLES = Path(__file__).parent.parent / "examples"

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")


def test_results_come_back_in_order() -> None:
    items = list(range(103))
    assert parallel.map_in_workers(lambda n: (n, n * n), items, 3) == [(n, n * n) for n in items]


def test_a_failed_worker_share_is_run_again_here() -> None:
    parent = os.getpid()

    def square(n: int) -> int:
        if os.getpid() != parent and n == 70:
            os._exit(9)  # a worker killed mid-way
        return n * n

    assert parallel.map_in_workers(square, list(range(100)), 2) == [n * n for n in range(100)]


def test_an_unpicklable_result_is_computed_here() -> None:
    parent = os.getpid()
    assert parallel.map_in_workers(
        lambda n: (lambda: n) if os.getpid() != parent else n, list(range(10)), 2
    ) == list(range(10))


def test_a_failure_here_leaves_no_worker_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    parent, pids = os.getpid(), []
    fork = parallel._fork

    def recorded(function: Any, share: Any) -> tuple[int, int]:
        pid, reader = fork(function, share)
        pids.append(pid)
        return pid, reader

    def fails_here(n: int) -> bytes:
        if os.getpid() == parent:
            raise RuntimeError("a bug in tpuemb")
        return bytes(1 << 20)  # more than a pipe holds: the worker waits for a reader

    monkeypatch.setattr(parallel, "_fork", recorded)
    with pytest.raises(RuntimeError, match="a bug in tpuemb"):
        parallel.map_in_workers(fails_here, [1, 2], 2)
    (pid,) = pids
    with pytest.raises(ChildProcessError):  # reaped: no such child any more
        os.waitpid(pid, os.WNOHANG)


def test_how_many_workers() -> None:
    assert parallel.workers_for(10, 0) == 1  # too few files to pay for a fork
    assert parallel.workers_for(1000, 1) == 1
    assert parallel.workers_for(1000, 3) == 3
    assert parallel.workers_for(100, 8) == 100 // parallel.MIN_ITEMS_PER_WORKER


def _tree(root: Path) -> Path:
    good = (EXAMPLES / "ranking_model.pbtxt").read_text()
    bad = (EXAMPLES / "mistakes" / "common_mistakes.pbtxt").read_text()
    folder = root / "configs"
    for index in range(240):
        sub = folder / f"team{index % 3}"
        sub.mkdir(parents=True, exist_ok=True)
        text = bad if index % 7 == 0 else good
        (sub / f"model_{index:03}.pbtxt").write_text(text)
    (folder / "team1" / "broken.pbtxt").write_text("table_descriptor {")
    return folder


@pytest.mark.parametrize("fmt", ["concise", "json", "full"])
@pytest.mark.slow
def test_cli_output_is_the_same_in_one_or_several_processes(tmp_path: Path, fmt: str) -> None:
    folder = _tree(tmp_path)
    runner = CliRunner()
    args = ["check", "--isolated", "--format", fmt, str(folder), str(tmp_path / "missing.pbtxt")]
    one = runner.invoke(main, [*args, "--jobs", "1"])
    several = runner.invoke(main, [*args, "--jobs", "3"])
    assert one.exit_code == several.exit_code == 2  # the missing file
    assert one.stdout == several.stdout and one.stderr == several.stderr
    assert "missing.pbtxt: no such file" in one.stderr
    if fmt == "json":
        summary = json.loads(one.stdout)["summary"]
        assert summary["files_checked"] == 241 and summary["files_with_findings"] == 36


@pytest.mark.slow
def test_configuration_suppressions_keep_one_process(tmp_path: Path) -> None:
    # Whether a configuration suppression suppressed nothing needs every file's findings.
    folder = _tree(tmp_path)
    (folder / ".tpuemb.toml").write_text(
        '[[suppress]]\nfile = "team0/model_000.pbtxt"\nfield = "*"\nrules = ["TE406"]\n'
        'reason = "legacy"\n'
    )
    runner = CliRunner()
    args = ["check", "--format", "json", str(folder)]
    several = runner.invoke(main, [*args, "-j", "2"])
    assert several.stdout == runner.invoke(main, [*args, "-j", "1"]).stdout
    found = [(Path(f["file"]).name, f["rule"]) for f in json.loads(several.stdout)["findings"]]
    assert ("model_000.pbtxt", "TE406") not in found and ("model_007.pbtxt", "TE406") in found
    assert not [rule for _, rule in found if rule == "TE902"]


def test_when_the_run_stays_in_one_process(tmp_path: Path) -> None:
    from tpuemb_cli.cli import check as run
    from tpuemb_cli.cli.inputs import Input
    from tpuemb_cli.cli.linting import workers
    from tpuemb_cli.engine.settings import Settings, Suppression

    files = [(Input(f"f{i}.pbtxt", str(tmp_path / f"f{i}.pbtxt")), Settings()) for i in range(400)]
    options = run.CheckOptions(paths=[], jobs=2)
    assert workers(files, options, changing=False) == 2
    assert workers(files, options, changing=True) == 1
    assert workers([*files, (Input("-", None), Settings())], options, False) == 1
    entry = Suppression(0, "f1.pbtxt", "*", ("TE406",), "legacy")
    suppressed = Settings(suppress=(entry,))
    assert workers([*files, (files[0][0], suppressed)], options, False) == 1
