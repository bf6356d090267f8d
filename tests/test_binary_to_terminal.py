"""Binary output never goes to a terminal (issue 38, point 5): `convert --to binary` without
`-o` wrote raw protobuf bytes to the terminal. It is refused there, as gzip refuses, and written
to a pipe or a file as ever."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "examples" / "recommender.pbtxt")


def _on_a_terminal(*args: str) -> tuple[int, bytes]:
    """Runs tpuemb with its stdout on a pseudo-terminal; its exit code and what it printed.
    The terminal is read while the process runs: a terminal holds a few KB, and a process that
    writes more waits for its reader (a JSON config of some KB hung the suite once)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tpuemb_cli", *args],
        stdout=follower,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    os.close(follower)
    shown = b""
    try:
        while chunk := os.read(leader, 65536):
            shown += chunk
    except OSError:  # EIO: the terminal's other end closed, the process is done with it
        pass
    os.close(leader)
    assert process.stderr is not None
    errors = process.stderr.read()
    return process.wait(timeout=60), shown + errors


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_binary_is_refused_on_a_terminal_and_written_elsewhere(tmp_path: Path) -> None:
    code, shown = _on_a_terminal("convert", "--to", "binary", CONFIG)
    assert code == 2
    assert shown == (
        b"tpuemb: error: binary output is not written to a terminal: give -o FILE, or redirect\n"
    )
    # Text to the terminal, binary to a pipe and to a file: as before.
    code, shown = _on_a_terminal("convert", "--to", "json", CONFIG)
    assert code == 0 and shown.lstrip().startswith(b"{")
    piped = subprocess.run(
        [sys.executable, "-m", "tpuemb_cli", "convert", "--to", "binary", CONFIG],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert piped.returncode == 0 and piped.stdout and piped.stderr == b""
    out = tmp_path / "model.pb"
    code, shown = _on_a_terminal("convert", "--to", "binary", "-o", str(out), CONFIG)
    assert (code, shown) == (0, b"") and out.read_bytes() == piped.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_text_larger_than_a_terminal_holds_is_written_whole(tmp_path: Path) -> None:
    # More than a pseudo-terminal buffers (a few KB): written whole while it is read.
    tables = "".join(
        f'table_descriptor {{ name: "t{i}" vocabulary_size: 100 dimension: 8 '
        "optimization_parameters { adagrad {} learning_rate { constant: 0.1 } } }\n"
        for i in range(300)
    )
    config = tmp_path / "large.pbtxt"
    config.write_text(tables + "mode: TRAINING\n", encoding="utf-8")
    code, shown = _on_a_terminal("convert", "--to", "json", str(config))
    assert code == 0
    assert len(shown) > 30_000 and shown.count(b'"name"') == 300
