"""A run that forks workers (``diff``'s large pair, ``check``'s many files) leaves none behind,
whichever way it ends (issue 36): SIGINT or SIGTERM to the parent alone while a worker still
loads. The symptom was the caller's: the parent exited 2, and its stdout stayed open for seconds
more, held by an orphaned worker that went on loading."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .test_diff_parallel import _config

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or not Path("/proc").is_dir() or len(os.sched_getaffinity(0)) < 2,
    reason="needs os.fork, /proc and two CPUs (the workers fork only then)",
)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc: no psutil)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _interrupt(args: list[str], folder: Path, signum: int) -> tuple[int, bytes, float]:
    """Runs tpuemb with ``args`` in ``folder``, its stdout and stderr one pipe; once a worker
    has forked and the parent's own share is done, sends ``signum`` to the parent alone. Returns
    its exit status, what it wrote, and how long after its exit the pipe stayed open."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tpuemb_cli", *args],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while not workers:
        assert process.poll() is None, process.stdout.read()
        assert time.monotonic() < deadline, "no worker forked"
        workers = _children(process.pid)
        time.sleep(0.02)
    time.sleep(0.5)  # the parent's share (the small one) is done: it waits for the worker
    assert all(_alive(worker) for worker in workers), "the worker ended before the signal"
    process.send_signal(signum)
    status = process.wait(timeout=20)
    ended = time.monotonic()
    # The pipe reaches end of file only when every holder has closed it.
    output = b""
    while True:
        ready, _, _ = select.select([process.stdout], [], [], 10)
        assert ready, "the pipe stayed open"
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            break
        output += chunk
    open_after = time.monotonic() - ended
    process.stdout.close()
    assert not any(_alive(worker) for worker in workers), "a worker outlived its parent"
    return status, output, open_after


@pytest.fixture
def large_pair(tmp_path: Path) -> Path:
    # Both sides above PARALLEL_BYTES (256 KiB), the new one (the worker's) much longer to load.
    (tmp_path / "old.pbtxt").write_text(_config("t", 1400))
    (tmp_path / "new.pbtxt").write_text(_config("t", 40000))
    return tmp_path


@pytest.mark.parametrize(
    ("signum", "status", "said"),
    [(signal.SIGINT, 2, b"tpuemb: interrupted\n"), (signal.SIGTERM, -signal.SIGTERM, b"")],
    ids=["SIGINT", "SIGTERM"],
)
@pytest.mark.slow
def test_diff_interrupted_leaves_no_worker(
    large_pair: Path, signum: int, status: int, said: bytes
) -> None:
    args = ["diff", "--isolated", "old.pbtxt", "new.pbtxt"]
    ended, output, open_after = _interrupt(args, large_pair, signum)
    assert (ended, output) == (status, said)
    assert open_after < 1.0


@pytest.mark.slow
def test_check_interrupted_leaves_no_worker(tmp_path: Path) -> None:
    # 80 files, two workers of 40 each (MIN_ITEMS_PER_WORKER): this process checks the first
    # share (small files), the worker the second (large ones), still at it when SIGINT comes.
    for number in range(40):
        (tmp_path / f"a{number:02d}.pbtxt").write_text(_config("t", 2))
        (tmp_path / f"b{number:02d}.pbtxt").write_text(_config("t", 600))
    ended, output, open_after = _interrupt(
        ["check", "--isolated", "--jobs", "2", "."], tmp_path, signal.SIGINT
    )
    assert (ended, output) == (2, b"tpuemb: interrupted\n")
    assert open_after < 1.0
