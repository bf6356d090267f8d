"""Renames are recognised by look-ups: renaming every one of N tables costs O(N) signature
computations (it cost N x N, 136 s for 10,000 tables, before), and each rename is still said."""

from __future__ import annotations

import pytest

from tpuemb_cli.compat import matching
from tpuemb_cli.compat.compare import compare
from tpuemb_cli.compat.sides import Table
from tpuemb_cli.load import load_bytes

TABLES = 400


def _config(prefix: str, tables: int = TABLES, same_shape: bool = False) -> bytes:
    lines = []
    for index in range(tables):
        vocabulary = 1000 if same_shape else 1000 + index
        lines.append(
            f'table_descriptor {{ name: "{prefix}{index}" vocabulary_size: {vocabulary} '
            "dimension: 8 optimization_parameters { adagrad {} learning_rate { constant: 0.1 } } }"
        )
        lines.append(f'feature_descriptor {{ name: "f{index}" table_id: {index} input_shape: 4 }}')
    lines.append("mode: TRAINING\nnum_hosts: 1\nnum_tensor_cores: 8")
    return "\n".join(lines).encode()


@pytest.mark.parametrize("same_shape", [False, True], ids=["distinct-shapes", "one-shape"])
def test_renaming_every_table_is_linear_and_each_rename_is_said(
    monkeypatch: pytest.MonkeyPatch, same_shape: bool
) -> None:
    calls = 0
    signature = matching.signature

    def counted(table: Table) -> matching.Signature:
        nonlocal calls
        calls += 1
        return signature(table)

    monkeypatch.setattr(matching, "signature", counted)
    old = load_bytes(_config("t", same_shape=same_shape), "old.pbtxt")
    new = load_bytes(_config("u", same_shape=same_shape), "new.pbtxt")
    changes = compare(old, new)
    assert calls <= 4 * TABLES, calls
    renames = [c for c in changes if c.kind == "silent-reinit" and "renamed?" in c.message]
    # One shape for all: the features each table kept tell the renames apart.
    assert len(renames) == TABLES
    assert renames[7].old == "t7" and renames[7].new == "u7"


def test_two_candidates_and_no_shared_feature_is_no_guess() -> None:
    old = load_bytes(_config("t", 2, same_shape=True), "old.pbtxt")
    text = _config("u", 2, same_shape=True).decode().replace('"f0"', '"g0"').replace('"f1"', '"g1"')
    new = load_bytes(text.encode(), "new.pbtxt")
    changes = compare(old, new)
    assert not [c for c in changes if "renamed?" in c.message]
