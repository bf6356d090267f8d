from pathlib import Path

from tests.jax_specs import one_finding, replaced


def test_a_zero_id_limit(tmp_path: Path) -> None:
    text = replaced(("max_ids_per_partition: 256", "max_ids_per_partition: 0"))
    assert one_finding(tmp_path, text, "TE687") == (
        'PATH:6:3: TE687 [error] stack "video_user" has max_ids_per_partition 0: no id can go to '
        "a partition (the library's preprocessing aborts sizing its buffers from a max_ids of 0)"
    )


def test_a_negative_unique_limit(tmp_path: Path) -> None:
    text = replaced(("max_unique_ids_per_partition: 256", "max_unique_ids_per_partition: -1"))
    assert one_finding(tmp_path, text, "TE687").startswith(
        'PATH:7:3: TE687 [error] stack "video_user" has max_unique_ids_per_partition -1:'
    )
