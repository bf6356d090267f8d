"""--diff is a unified diff that git apply and GNU patch accept, and applying it gives, byte for
byte, the file --fix writes: lines are split on "\\n" only (as the patch tools split them), a last
line without a newline is marked, and the byte-order mark is part of the first line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main
from tpuemb_cli.fix.write import unified_diff

from .helpers import CLEAN

FLAG = "    multiply_weight_decay_factor_by_learning_rate: true\n"
FIXABLE = CLEAN.replace(
    "    gradient_accumulation_status: ENABLED\n",
    "    gradient_accumulation_status: ENABLED\n" + FLAG,
)
# The same mistake on the last line, which has no newline.
LAST_LINE = (
    "mode: TRAINING num_hosts: 1 num_tensor_cores: 8\n"
    "feature_descriptor { table_id: 0 input_shape: 4 }\n"
    'table_descriptor { name: "v" vocabulary_size: 10 dimension: 4 optimization_parameters { '
    "adagrad {} learning_rate { constant: 0.1 } multiply_weight_decay_factor_by_learning_rate: "
    "true } }"
)


def _near_the_fix(characters: str) -> bytes:
    """FIXABLE with a comment holding ``characters`` on the lines before and after the fix."""
    comment = f"    # a{characters}b\n"
    return FIXABLE.replace(FLAG, comment + FLAG + comment).encode()


CASES = {
    "lf": FIXABLE.encode(),
    "crlf": FIXABLE.replace("\n", "\r\n").encode(),
    "bom": b"\xef\xbb\xbf" + FIXABLE.encode(),
    "bom-crlf": b"\xef\xbb\xbf" + FIXABLE.replace("\n", "\r\n").encode(),
    "bom-fix-on-line-1": b"\xef\xbb\xbf" + "\n".join(LAST_LINE.split("\n")[::-1]).encode(),
    "no-final-newline": FIXABLE.rstrip("\n").encode(),
    "last-line-no-newline": LAST_LINE.encode(),
    "form-feed": _near_the_fix("\f"),
    "u2028": _near_the_fix("\u2028"),
    "nel": _near_the_fix("\x85"),
    "lone-cr": _near_the_fix("\r"),
    "vertical-tab": _near_the_fix("\v"),
    "unused-suppression-last": (FIXABLE + "# tpuemb: ignore[TE105] left over").encode(),
}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _fixed_and_diff(folder: Path, data: bytes) -> tuple[bytes, str]:
    """What --fix writes for ``data``, and what --diff prints for it (run in ``folder``, with a
    relative name, as in a repository)."""
    (folder / "model.pbtxt").write_bytes(data)
    diff = invoke("check", "--diff", "model.pbtxt")
    assert diff.exit_code == 1
    assert diff.stderr.startswith("Would fix ")
    assert (folder / "model.pbtxt").read_bytes() == data  # --diff writes nothing
    fixed = invoke("check", "--fix", "model.pbtxt")
    assert fixed.stderr == "tpuemb: fixed 1 file\n"
    written = (folder / "model.pbtxt").read_bytes()
    assert written != data
    (folder / "model.pbtxt").write_bytes(data)
    return written, diff.stdout_bytes.decode()  # .stdout would turn "\r\n" into "\n"


@pytest.mark.parametrize("case", CASES)
def test_git_apply_gives_what_fix_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.chdir(tmp_path)
    written, diff = _fixed_and_diff(tmp_path, CASES[case])
    (tmp_path / "fix.diff").write_text(diff, newline="")
    for args in (["--check"], []):
        applied = subprocess.run(
            ["git", "apply", *args, "fix.diff"], capture_output=True, text=True, check=False
        )
        assert applied.returncode == 0, (applied.stderr, diff)
    assert (tmp_path / "model.pbtxt").read_bytes() == written


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize("case", CASES)
def test_patch_gives_what_fix_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.chdir(tmp_path)
    written, diff = _fixed_and_diff(tmp_path, CASES[case])
    (tmp_path / "fix.diff").write_text(diff, newline="")
    applied = subprocess.run(
        ["patch", "-p1", "--batch", "-i", "fix.diff"], capture_output=True, text=True, check=False
    )
    assert applied.returncode == 0, (applied.stdout, applied.stderr, diff)
    assert (tmp_path / "model.pbtxt").read_bytes() == written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fix.diff", "model.pbtxt"]


def test_no_newline_markers() -> None:
    assert unified_diff("m.pbtxt", b"a\nb", "a\nc") == (
        "--- a/m.pbtxt\n+++ b/m.pbtxt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
        "+c\n\\ No newline at end of file\n"
    )
    assert unified_diff("m.pbtxt", b"a\nb", "c\nb") == (
        "--- a/m.pbtxt\n+++ b/m.pbtxt\n@@ -1,2 +1,2 @@\n-a\n+c\n b\n\\ No newline at end of file\n"
    )
    assert unified_diff("m.pbtxt", b"a\nb", "a\nb\n") == (
        "--- a/m.pbtxt\n+++ b/m.pbtxt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    )


def test_lines_split_on_newline_only() -> None:
    assert unified_diff(
        "m.pbtxt", "a\fb\u2028c\x85d\re\nx\n".encode(), "a\fb\u2028c\x85d\re\ny\n"
    ) == ("--- a/m.pbtxt\n+++ b/m.pbtxt\n@@ -1,2 +1,2 @@\n a\fb\u2028c\x85d\re\n-x\n+y\n")
