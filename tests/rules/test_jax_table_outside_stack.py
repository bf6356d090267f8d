from pathlib import Path

from tests.jax_specs import one_finding, replaced


def test_a_table_past_the_shard(tmp_path: Path) -> None:
    text = replaced(("row_offset_in_shard: 128", "row_offset_in_shard: 200"))
    assert one_finding(tmp_path, text, "TE685") == (
        'PATH:37:5: TE685 [error] table "user" takes rows 200 to 831 of each shard, but stack '
        '"video_user" has 760 rows a shard (stack_vocab_size 6080 / 8)'
    )


def test_a_table_over_another(tmp_path: Path) -> None:
    text = replaced(("row_offset_in_shard: 128", "row_offset_in_shard: 64"))
    assert one_finding(tmp_path, text, "TE685") == (
        'PATH:37:5: TE685 [error] table "user" takes rows 64 to 695 of each shard, over rows 0 '
        'to 127 of table "video"'
    )


def test_a_rotation_past_the_sparsecores(tmp_path: Path) -> None:
    text = replaced(("shard_rotation: 2", "shard_rotation: 8"), ("col_shift: 2", "col_shift: 8"))
    assert one_finding(tmp_path, text, "TE685") == (
        'PATH:38:5: TE685 [error] table "user" has shard_rotation 8, outside stack "video_user"\'s '
        "8 SparseCore shards (0 to 7)"
    )
