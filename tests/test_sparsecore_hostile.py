"""SparseCore specs built to hurt: sizes past what the protos hold, shapes below 1. Findings or a
clear error (exit 2), never an internal error (TE010) or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.sparsecore_specs import check, replaced
from tpuemb_cli.cli import main

HUGE_VOCABULARY = ("vocabulary_size: 1000", "vocabulary_size: 9223372036854775807")
HUGE_SLICE = ("num_hosts: 1", "num_hosts: 2147483647")
NEGATIVE_DIM = ("dim: 16", "dim: -3")
NO_CHIP = ("accelerator: v5p", "sparse_cores_per_chip: 4")


@pytest.mark.parametrize(
    "pairs,expected",
    [
        ((HUGE_SLICE,), ["TE724"]),
        ((NEGATIVE_DIM,), ["TE701"]),
        ((HUGE_VOCABULARY, NO_CHIP), []),
    ],
    ids=["huge-slice", "negative-dim", "huge-vocabulary"],
)
def test_no_internal_error(
    tmp_path: Path, pairs: tuple[tuple[str, str], ...], expected: list[str]
) -> None:
    code, stdout, stderr, _ = check(tmp_path, replaced(*pairs))
    rules = [line.split()[1] for line in stdout.splitlines()[:-1]]
    assert (rules, stderr) == (expected, "")
    assert code == (1 if expected else 0)


def test_a_layout_too_large_for_the_proto_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(replaced(HUGE_VOCABULARY, NO_CHIP))
    result = CliRunner().invoke(main, ["compile", str(path), "--target", "sparsecore"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"tpuemb: error: {path}: not compiled: the layout does not fit SparseCoreTableLayout's "
        "fields: a padded table or a stack has more rows than an int64 holds, or the slice more "
        "SparseCores than an int32\n"
    )
    explained = CliRunner().invoke(main, ["explain", str(path)])
    assert explained.exit_code == 0
    assert explained.stdout.endswith(
        "SparseCore stacking: not laid out: the layout does not fit SparseCoreTableLayout's "
        "fields: a padded table or a stack has more rows than an int64 holds, or the slice more "
        "SparseCores than an int32\n"
    )
