"""A SparseCore spec that lints clean, and `tpuemb check` on a variant of it: the SparseCore rule
tests change one thing at a time and assert the whole output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main

SPARSECORE_SPEC = """\
optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}
tables:
  - {name: video, vocabulary_size: 1000, dim: 16}
features:
  - {name: watched, table: video, output_shape: [16]}
topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}
sparse_core: {}
"""


def check(folder: Path, text: str, *options: str) -> tuple[int, str, str, Path]:
    """Exit code, stdout and stderr of `tpuemb check` on ``text`` written to spec.yaml in
    ``folder``, and the spec's path."""
    path = folder / "spec.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["check", str(path), *options])
    return result.exit_code, result.stdout, result.stderr, path


def replaced(*pairs: tuple[str, str]) -> str:
    """SPARSECORE_SPEC with each (old, new) replaced; each old must be in it."""
    text = SPARSECORE_SPEC
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new)
    return text
