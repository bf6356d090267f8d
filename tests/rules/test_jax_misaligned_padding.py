from pathlib import Path

from tests.jax_specs import one_finding, replaced


def test_vocabulary_not_padded_to_the_sparsecores(tmp_path: Path) -> None:
    # 5000 rows on 8 SparseCores: a multiple of 64, 5056 (as the library wrote it).
    text = replaced(
        ("padded_vocab_size: 5056", "padded_vocab_size: 5000"),
        ("stack_vocab_size: 6080", "stack_vocab_size: 6024"),
    )
    assert one_finding(tmp_path, text, "TE683") == (
        'PATH:35:5: TE683 [error] table "user" has padded_vocab_size 5000; the library pads 5000 '
        "rows to a multiple of 8 x 8 SparseCores = 5056, and its checkpoint tools recompute that "
        "size"
    )


def test_dimension_not_a_multiple_of_eight(tmp_path: Path) -> None:
    text = replaced(("padded_embedding_dim: 64", "padded_embedding_dim: 66"))
    assert one_finding(tmp_path, text, "TE683") == (
        'PATH:64:5: TE683 [error] table "ads" has padded_embedding_dim 66; the library pads an '
        "embedding_dim of 64 to a multiple of 8, at least 64"
    )
