"""torchrec-stack-name-is-a-table (TE861)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of


def table(name: str, stack: str = "") -> str:
    named = f' stack_table_name: "{stack}"' if stack else ""
    return (
        f'tables {{ name: "{name}" kind: "bag" num_embeddings: 64 embedding_dim: 8 '
        f'feature_names: "{name}"{named} }}\n'
    )


def test_a_stack_named_for_another_table() -> None:
    assert findings_of(table("a", "b") + table("b") + "prepare {}") == [
        (
            "TE861",
            ("tables", 0, "stack_table_name"),
            "table `a` has stack_table_name `b`, the name of table `b`, which has none: "
            "prepare_tables_for_stacking stacks the two together as `b`",
            "name the stack apart from any table (and give table `b` the same stack_table_name "
            "if it belongs in it)",
        )
    ]


def test_a_stack_named_apart_and_auto_stacking() -> None:
    assert findings_of(table("a", "s") + table("b", "s") + "prepare {}") == []
    auto = (
        table("a", "b")
        + table("b")
        + 'collection { auto_stack: true batch_size: 2 optimizer { type: "Adagrad" } }'
    )
    assert "TE861" not in [rule for rule, *_ in findings_of(auto)]
