from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest

from tpuemb_cli.fix.atomic import write_atomic

from .helpers import CLEAN


def test_replaces_content_and_keeps_mode(tmp_path: Path) -> None:
    path = tmp_path / "c.pbtxt"
    path.write_text("old")
    path.chmod(0o640)
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new"
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["c.pbtxt"]


def test_failure_leaves_the_original_and_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "c.pbtxt"
    path.write_text("old")
    disk_full = OSError(28, "No space left on device")
    with mock.patch("os.fsync", side_effect=disk_full), pytest.raises(OSError):
        write_atomic(path, b"new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["c.pbtxt"]


def test_interrupted_mid_write_leaves_the_original(tmp_path: Path) -> None:
    # A kill arriving while the temporary file is written (simulated: KeyboardInterrupt from
    # inside write) must leave the original intact and no temporary file behind.
    path = tmp_path / "c.pbtxt"
    path.write_text("old")
    real_write = os.write

    def dying(fd: int, data: bytes) -> int:
        real_write(fd, data[: len(data) // 2])
        raise KeyboardInterrupt

    with mock.patch("os.write", dying), pytest.raises(KeyboardInterrupt):
        write_atomic(path, b"new content")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["c.pbtxt"]


def test_interrupted_in_place_write_puts_the_old_content_back(tmp_path: Path) -> None:
    path = tmp_path / "c.pbtxt"
    path.write_text("old content")
    os.link(path, tmp_path / "link.pbtxt")  # two links: written in place
    real_write = os.write
    calls = []

    def dying(fd: int, data: bytes) -> int:
        calls.append(fd)
        if len(calls) == 1:
            real_write(fd, b"ne")
            raise KeyboardInterrupt
        return real_write(fd, data)

    with mock.patch("os.write", dying), pytest.raises(KeyboardInterrupt):
        write_atomic(path, b"new")
    assert (tmp_path / "link.pbtxt").read_text() == "old content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.pbtxt", "link.pbtxt"]


# A tpuemb whose first write of a file blocks (in fsync: the data is written, not yet on disk) for a
# minute, in which the test sends a signal. Run in a process of its own, as a user's tpuemb is.
SLOW_TPUEMB = """
import os, sys, time
marker = sys.argv.pop(1)
real_fsync = os.fsync
calls = []
def slow(fd):
    if not calls:  # the first write only: putting the old content back is not slowed
        calls.append(fd)
        open(marker, "w").close()  # tell the test
        time.sleep(60)
    return real_fsync(fd)
os.fsync = slow
from tpuemb_cli.cli.main import main
main(sys.argv[1:])
"""
# The signals under test, as a user's shell leaves them to the tpuemb it starts: default, and not
# blocked. pytest itself may run with some ignored -- started in the background SIGINT is, under
# nohup SIGHUP is -- and a child inherits an ignored signal (which tpuemb rightly leaves ignored).
# So the child starts as this, which restores them and then becomes the command it is given.
AS_FROM_A_SHELL = """
import os, signal, sys
numbers = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT]
for number in numbers:
    signal.signal(number, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, numbers)
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""
FIXABLE = CLEAN.replace(
    "gradient_accumulation_status: ENABLED\n",
    "gradient_accumulation_status: ENABLED\n"
    "    multiply_weight_decay_factor_by_learning_rate: true\n",
)


OUTCOMES = [
    (signal.SIGTERM, -signal.SIGTERM, ""),
    (signal.SIGHUP, -signal.SIGHUP, ""),
    (signal.SIGINT, 2, "tpuemb: interrupted\n"),  # as a Ctrl-C at any other moment
]


@pytest.mark.parametrize(("signum", "returncode", "stderr"), OUTCOMES)
@pytest.mark.parametrize("links", [1, 2])
def test_a_signal_during_a_fix_removes_the_temporary_file(
    tmp_path: Path, signum: int, returncode: int, stderr: str, links: int
) -> None:
    _interrupt_a_fix(tmp_path, signum, returncode, stderr, links)


@contextmanager
def _ignored(numbers: list[signal.Signals]) -> Iterator[None]:
    """This process ignores ``numbers`` meanwhile, as one started by `nohup ... &` does."""
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in numbers}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@pytest.mark.parametrize(
    ("signum", "returncode", "stderr"), [o for o in OUTCOMES if o[0] != signal.SIGTERM]
)
def test_the_signal_test_holds_when_pytest_runs_with_signals_ignored(
    tmp_path: Path, signum: int, returncode: int, stderr: str
) -> None:
    # As under `nohup python -m pytest &`: SIGINT and SIGHUP ignored. The child still gets the
    # default dispositions, so the signal test tests tpuemb, not how pytest was started.
    with _ignored([signal.SIGINT, signal.SIGHUP]):
        _interrupt_a_fix(tmp_path, signum, returncode, stderr, links=1)


def _interrupt_a_fix(tmp_path: Path, signum: int, returncode: int, stderr: str, links: int) -> None:
    folder = tmp_path / "configs"
    folder.mkdir()
    path = folder / "model.pbtxt"
    path.write_text(FIXABLE * 200)  # large: a write that takes more than one call
    names = ["model.pbtxt"]
    if links == 2:  # written in place: the old content is put back
        os.link(path, folder / "same.pbtxt")
        names.append("same.pbtxt")
    started = tmp_path / "started"
    tpuemb = ["-c", SLOW_TPUEMB, str(started), "check", "--fix", str(path)]  # python's arguments
    child = subprocess.Popen(
        [sys.executable, "-c", AS_FROM_A_SHELL, *tpuemb],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert started.exists(), child.communicate()
    child.send_signal(signum)
    _, err = child.communicate(timeout=30)
    assert (child.returncode, err) == (returncode, stderr)
    assert sorted(p.name for p in folder.iterdir()) == names
    assert path.read_text() == FIXABLE * 200
