from pathlib import Path

from tests.jax_specs import check, one_finding, replaced

WATCHED = "input_shape: 128\n      input_shape: 4"


def test_a_batch_that_overflows_every_partition(tmp_path: Path) -> None:
    # watched: 8192 x 4 ids; with liked and viewer 33,024 ids: 4,128 a SparseCore, 516 to some
    # partition of the 8.
    text = replaced((WATCHED, WATCHED.replace("128", "8192")))
    assert one_finding(tmp_path, text, "TE689") == (
        'PATH:6:3: TE689 [warning] stack "video_user" allows 256 ids per partition, but its '
        "features' input shapes hold 33,024 ids a batch: 4,128 a SparseCore, of which some "
        "partition of the 8 gets at least 516"
    )


def test_just_enough(tmp_path: Path) -> None:
    # 16,128 + 256 ids: 2,048 a SparseCore, 256 to each partition: the limit holds.
    text = replaced((WATCHED, WATCHED.replace("128", "4032")))
    assert check(tmp_path, text, "--select", "TE689")[:2] == (
        0,
        "All checks passed (1 file checked).\n",
    )
