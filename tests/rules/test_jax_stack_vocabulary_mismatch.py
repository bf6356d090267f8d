from pathlib import Path

from tests.jax_specs import check, one_finding, replaced


def test_a_stack_larger_than_its_tables(tmp_path: Path) -> None:
    text = replaced(("stack_vocab_size: 6080", "stack_vocab_size: 6144"))
    assert one_finding(tmp_path, text, "TE682") == (
        'PATH:3:3: TE682 [error] stack "video_user" has stack_vocab_size 6144, but its 2 tables '
        "have 6080 padded rows: the library makes a stack exactly its tables' padded rows"
    )


def test_a_stack_without_tables_says_nothing(tmp_path: Path) -> None:
    text = 'stacked_table_specs { stack_name: "a" stack_vocab_size: 64 num_sparsecores: 8 }\n'
    assert check(tmp_path, text, "--select", "TE682")[:2] == (
        0,
        "All checks passed (1 file checked).\n",
    )
