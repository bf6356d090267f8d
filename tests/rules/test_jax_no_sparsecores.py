from pathlib import Path

from tests.jax_specs import STACKED, check, one_finding, replaced


def test_the_librarys_spec_is_clean(tmp_path: Path) -> None:
    assert check(tmp_path, STACKED)[:3] == (0, "All checks passed (1 file checked).\n", "")


def test_no_sparsecores(tmp_path: Path) -> None:
    text = replaced(("num_sparsecores: 8", "num_sparsecores: 0"))
    assert one_finding(tmp_path, text, "TE681") == (
        'PATH:8:3: TE681 [error] stack "video_user" has num_sparsecores 0: a stack is sharded '
        "over every SparseCore, and its padding, shards and rotations are read against their count"
    )
