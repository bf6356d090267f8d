from pathlib import Path

from tests.jax_specs import one_finding, replaced


def test_a_table_padded_to_another_width(tmp_path: Path) -> None:
    text = replaced(("padded_embedding_dim: 16\n    row", "padded_embedding_dim: 24\n    row"))
    assert one_finding(tmp_path, text, "TE684") == (
        'PATH:36:5: TE684 [error] table "user" has padded_embedding_dim 24, but stack '
        '"video_user" is 16 wide: the library pads every table of a stack to the stack\'s '
        "dimension"
    )


def test_a_table_wider_than_its_stack(tmp_path: Path) -> None:
    text = replaced(("embedding_dim: 12", "embedding_dim: 20"))
    assert one_finding(tmp_path, text, "TE684") == (
        'PATH:34:5: TE684 [error] table "user" has embedding_dim 20, wider than stack '
        '"video_user"\'s stack_embedding_dim 16: its columns do not fit the stacked variable'
    )
