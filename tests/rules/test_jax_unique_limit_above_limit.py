from pathlib import Path

from tests.jax_specs import check, one_finding, replaced


def test_more_unique_ids_than_ids(tmp_path: Path) -> None:
    text = replaced(("max_unique_ids_per_partition: 256", "max_unique_ids_per_partition: 512"))
    assert one_finding(tmp_path, text, "TE688") == (
        'PATH:7:3: TE688 [warning] stack "video_user" allows 512 distinct ids per partition but '
        "only 256 ids (max_ids_per_partition): the unique limit is never reached"
    )


def test_equal_limits_are_fine(tmp_path: Path) -> None:
    assert check(tmp_path, replaced(), "--select", "TE688")[:2] == (
        0,
        "All checks passed (1 file checked).\n",
    )
