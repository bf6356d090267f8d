"""A JAX EmbeddingSpecProto that jax-tpu-embedding 0.1.0 wrote (tests/data/jax/stacked.pbtxt: three
tables on 4 devices x 2 SparseCores, two auto-stacked), and `tpuemb check` on a variant of it: the
JAX rule tests change one thing at a time and assert the whole output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main

STACKED = (Path(__file__).parent / "data" / "jax" / "stacked.pbtxt").read_text()


def check(folder: Path, text: str, *options: str) -> tuple[int, str, str, Path]:
    """Exit code, stdout and stderr of `tpuemb check` on ``text`` written to stacked.pbtxt in
    ``folder`` (recognised by its fields: no --type), and its path."""
    path = folder / "stacked.pbtxt"
    path.write_text(text)
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(path), *options])
    return result.exit_code, result.stdout, result.stderr, path


def replaced(*pairs: tuple[str, str]) -> str:
    """STACKED with the first of each (old, new) replaced; each old must be in it."""
    text = STACKED
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def one_finding(folder: Path, text: str, code: str) -> str:
    """The one line `tpuemb check --select code` reports on ``text`` (with the path as PATH),
    after asserting exit code 1 and the summary."""
    exit_code, stdout, stderr, path = check(folder, text, "--select", code)
    lines = stdout.replace(str(path), "PATH").splitlines()
    # Errors fail the check (exit 1); warnings are reported and pass it.
    failed = 1 if "[error]" in stdout else 0
    assert (exit_code, stderr, len(lines)) == (failed, "", 2), stdout
    assert lines[1].startswith("Found 1 ")
    return lines[0]
