"""Writes that respect the file: --fix and --output-file/-o write the file a path names -- through
symbolic links, keeping hard links, owner, group and mode -- only when the user may write it, and
write special files (FIFOs, devices) directly. The permission cases run tpuemb as root and, in a
forked child, as the unprivileged user nobody (65534)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN, SPEC

FIXABLE = CLEAN.replace(
    "    gradient_accumulation_status: ENABLED\n",
    "    gradient_accumulation_status: ENABLED\n"
    "    multiply_weight_decay_factor_by_learning_rate: true\n",
)
NOBODY = 65534
ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="giving files to another user needs root")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


class Ran(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def as_nobody(*args: str) -> Ran:
    """``tpuemb ARGS`` in a forked child that has become the user and group nobody. The child
    runs it in-process: nobody cannot exec this interpreter when it lives under /root, nor import
    what it has not imported yet, so the parent first runs the commands the tests use, as root,
    on files of its own."""
    _warm()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns to pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            result = CliRunner().invoke(main, list(args))
            outcome = [result.exit_code, result.stdout, result.stderr]
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                outcome = [99, "", "".join(traceback.format_exception(result.exception))]
            os.write(write, json.dumps(outcome).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    code, out, err = json.loads(data)
    return Ran(code, out, err)


def _warm() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.pbtxt"
        path.write_text(FIXABLE)
        invoke("check", "--fix", str(path))
        path.write_text(FIXABLE)
        path.chmod(0o444)
        invoke("check", "--fix", str(path))
        invoke(
            "check",
            "--format",
            "json",
            "--output-file",
            str(Path(folder) / "report.json"),
            str(path),
        )


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder everyone may write (with the sticky bit off), as a shared checkout would be;
    pytest's tmp_path sits in a folder only its owner can enter."""
    folder = Path(tempfile.mkdtemp(prefix="tpuemb-writes-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder)


# --- symbolic links and hard links ---------------------------------------------------------


def test_fix_writes_through_a_symbolic_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "model.pbtxt"
    target.write_text(FIXABLE)
    link = tmp_path / "model.pbtxt"
    link.symlink_to(Path("real") / "model.pbtxt")
    result = invoke("check", "--fix", str(link))
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "Found 1 finding (1 fixed, 0 remaining); 1 file checked.\n",
        "tpuemb: fixed 1 file\n",
    )
    assert link.is_symlink() and link.readlink() == Path("real") / "model.pbtxt"
    assert target.read_text() == CLEAN
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["model.pbtxt"]


def test_fix_keeps_hard_links(tmp_path: Path) -> None:
    path = tmp_path / "model.pbtxt"
    path.write_text(FIXABLE)
    other = tmp_path / "same.pbtxt"
    os.link(path, other)
    inode = path.stat().st_ino
    result = invoke("check", "--fix", str(path))
    assert (result.exit_code, result.stderr) == (0, "tpuemb: fixed 1 file\n")
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert other.read_text() == CLEAN
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pbtxt", "same.pbtxt"]


def test_fix_keeps_mode(tmp_path: Path) -> None:
    path = tmp_path / "model.pbtxt"
    path.write_text(FIXABLE)
    path.chmod(0o640)
    invoke("check", "--fix", str(path))
    assert path.read_text() == CLEAN
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@needs_root
def test_root_fixing_another_users_file_keeps_its_owner(shared: Path) -> None:
    path = shared / "model.pbtxt"
    path.write_text(FIXABLE)
    path.chmod(0o640)
    os.chown(path, NOBODY, NOBODY)
    result = invoke("check", "--fix", str(path))
    assert (result.exit_code, result.stderr) == (0, "tpuemb: fixed 1 file\n")
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (NOBODY, NOBODY, 0o640)
    assert path.read_text() == CLEAN
    # The owner can still read and fix their file.
    assert as_nobody("check", str(path)).returncode == 0


# --- permission: the real access check, as an unprivileged user ---------------------------


@needs_root
def test_a_user_cannot_replace_a_file_they_may_not_write(shared: Path) -> None:
    # root's 0644 file in a folder nobody may write: the mode has write bits (root's), the
    # folder allows a rename, but nobody may not write the file.
    path = shared / "model.pbtxt"
    path.write_text(FIXABLE)
    result = as_nobody("check", "--fix", str(path))
    assert (result.returncode, result.stderr) == (
        2,
        f"tpuemb: {path}: not fixed: cannot write: permission denied\n",
    )
    assert path.read_text() == FIXABLE
    assert path.stat().st_uid == 0
    assert sorted(p.name for p in shared.iterdir()) == ["model.pbtxt"]


@needs_root
def test_a_user_fixing_a_group_file_keeps_its_owner(shared: Path) -> None:
    # root's file that nobody's group may write: nobody fixes it, and it stays root's (in place:
    # a copy renamed over it would be nobody's).
    path = shared / "model.pbtxt"
    path.write_text(FIXABLE)
    os.chown(path, 0, NOBODY)
    path.chmod(0o664)
    result = as_nobody("check", "--fix", str(path))
    assert (result.returncode, result.stderr) == (0, "tpuemb: fixed 1 file\n")
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, NOBODY, 0o664)
    assert path.read_text() == CLEAN


@needs_root
def test_nobody_fixes_a_read_only_file(shared: Path) -> None:
    path = shared / "model.pbtxt"
    path.write_text(FIXABLE)
    os.chown(path, NOBODY, NOBODY)
    path.chmod(0o444)
    message = (
        f"tpuemb: {path}: not fixed: cannot write: permission denied (the file is read-only)\n"
    )
    result = as_nobody("check", "--fix", str(path))
    assert (result.returncode, result.stderr) == (2, message)
    assert path.read_text() == FIXABLE
    root = invoke("check", "--fix", str(path))
    assert (root.exit_code, root.stderr) == (2, message)
    assert path.read_text() == FIXABLE


@needs_root
def test_a_user_fixes_their_own_file(shared: Path) -> None:
    path = shared / "model.pbtxt"
    path.write_text(FIXABLE)
    os.chown(path, NOBODY, NOBODY)
    path.chmod(0o600)
    result = as_nobody("check", "--fix", str(path))
    assert (result.returncode, result.stderr) == (0, "tpuemb: fixed 1 file\n")
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (NOBODY, NOBODY, 0o600)
    assert path.read_text() == CLEAN
    assert sorted(p.name for p in shared.iterdir()) == ["model.pbtxt"]


@needs_root
def test_a_user_cannot_overwrite_a_report_they_may_not_write(shared: Path) -> None:
    config = shared / "model.pbtxt"
    config.write_text(CLEAN)
    report = shared / "report.json"
    report.write_text("root's\n")
    result = as_nobody("check", "--format", "json", "--output-file", str(report), str(config))
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        f"tpuemb: error: {report}: cannot write the report: permission denied\n",
    )
    assert report.read_text() == "root's\n"


# --- --output-file / -o: special files and links ------------------------------------------

# Each command that writes a file, and what it writes for CLEAN (or SPEC).
COMMANDS = {
    "check": (["check", "--format", "json"], "model.pbtxt", CLEAN),
    "convert": (["convert", "--to", "json"], "model.pbtxt", CLEAN),
    "compile": (["compile", "--to", "text"], "spec.yaml", SPEC),
}


def _command(name: str, folder: Path, output: str) -> tuple[list[str], str]:
    """The arguments that make ``name`` write to ``output``, and what it writes to stdout."""
    args, file, content = COMMANDS[name]
    source = folder / file
    source.write_text(content)
    option = "--output-file" if name == "check" else "-o"
    expected = invoke(*args, str(source))
    assert expected.exit_code == 0, expected.output
    return [*args, option, output, str(source)], expected.stdout


@pytest.mark.parametrize("name", COMMANDS)
def test_output_to_a_fifo_writes_into_it(tmp_path: Path, name: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    args, expected = _command(name, tmp_path, str(fifo))
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = invoke(*args)
    reader.join(timeout=30)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert received == [expected.encode()]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("name", COMMANDS)
def test_output_to_a_device_writes_into_it(tmp_path: Path, name: str) -> None:
    # A null device of our own, so that a regression replaces it and not the machine's.
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as problem:
        pytest.skip(f"cannot make a device node here: {problem.strerror}")
    args, _ = _command(name, tmp_path, str(null))
    result = invoke(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert stat.S_ISCHR(null.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != COMMANDS[name][1]) == ["null"]


@pytest.mark.parametrize("name", COMMANDS)
def test_output_to_dev_stdout_writes_to_stdout(tmp_path: Path, name: str) -> None:
    # A link of our own to what /dev/stdout links to: a regression then replaces this link,
    # not the machine's /dev/stdout (as it did to an earlier version of this test, run as root).
    stdout = tmp_path / "stdout"
    stdout.symlink_to("/proc/self/fd/1")
    args, expected = _command(name, tmp_path, str(stdout))
    out = tmp_path / "out"
    with out.open("wb") as handle:
        result = subprocess.run(
            [sys.executable, "-m", "tpuemb_cli", *args],
            stdout=handle,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert (result.returncode, result.stderr) == (0, "")
    assert out.read_text() == expected
    assert stdout.is_symlink()


@pytest.mark.parametrize("name", COMMANDS)
def test_output_to_a_symbolic_link_writes_through_it(tmp_path: Path, name: str) -> None:
    (tmp_path / "reports").mkdir()
    target = tmp_path / "reports" / "out"
    target.write_text("old\n")
    link = tmp_path / "out"
    link.symlink_to(target)
    args, expected = _command(name, tmp_path, str(link))
    result = invoke(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert link.is_symlink() and target.read_text() == expected
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "reports" / "new")
    args[args.index(str(link))] = str(dangling)
    assert invoke(*args).exit_code == 0
    assert dangling.is_symlink() and (tmp_path / "reports" / "new").read_text() == expected
