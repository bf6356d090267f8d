"""torchrec-max-seq-len-mismatch (TE850) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule

SGD = 'optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } }'
SEQUENCES = f'collection {{ type: "SparseCoreFusedEmbeddingCollection" batch_size: 8 {SGD} }}'


def sequence(name: str, max_seq_len: int, extra: str = "") -> str:
    return (
        f'tables {{ name: "{name}" kind: "sequence" num_embeddings: 64 embedding_dim: 8 '
        f'feature_names: "{name}_f" max_seq_len: {max_seq_len} {extra}}}\n'
    )


def message(table: str, length: int, first: str, used: int) -> str:
    return (
        f"table `{table}` (max_seq_len {length}) is stacked in `s` with table `{first}` "
        f"(max_seq_len {used}): torchrec accepts it silently, and the sequence collection reads "
        f"every feature of the stack with the first table's max_seq_len {used}, so `{table}`'s "
        "activations come back misread at training"
    )


def test_an_explicit_stack_of_two_lengths() -> None:
    text = (
        sequence("a", 4)
        + sequence("b", 8)
        + sequence("c", 4)
        + 'stack_calls { call: "stack_tables" tables: "a" tables: "b" tables: "c" name: "s" }\n'
        + SEQUENCES
    )
    assert findings_of_rule("TE850", text) == [
        (
            ("tables", 1, "max_seq_len"),
            message("b", 8, "a", 4),
            "give the tables of `s` one max_seq_len (4 or 8), or stack `b` apart",
        )
    ]


def test_a_stack_table_name_group_without_a_collection() -> None:
    text = sequence("a", 8, 'stack_table_name: "s" ') + sequence("b", 4, 'stack_table_name: "s" ')
    assert findings_of_rule("TE850", text) == [
        (
            ("tables", 1, "max_seq_len"),
            message("b", 4, "a", 8),
            "give the tables of `s` one max_seq_len (8 or 4), or stack `b` apart",
        )
    ]


def test_one_length_auto_stacking_and_separate_stacks() -> None:
    same = sequence("a", 4, 'stack_table_name: "s" ') + sequence("b", 4, 'stack_table_name: "s" ')
    assert findings_of_rule("TE850", same + SEQUENCES) == []
    # auto_stack_tables groups sequence tables by max_seq_len: never one stack of two lengths.
    auto = sequence("a", 4) + sequence("b", 8) + 'stack_calls { call: "auto_stack_tables" }\n'
    assert findings_of_rule("TE850", auto + SEQUENCES) == []
    # The default: each table in a stack of its own.
    assert findings_of_rule("TE850", sequence("a", 4) + sequence("b", 8) + SEQUENCES) == []
