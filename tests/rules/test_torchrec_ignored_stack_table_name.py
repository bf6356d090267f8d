"""torchrec-ignored-stack-table-name (TE852) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule

SGD = 'optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } }'
NAMED = 'stack_table_name: "s" '


def bag(name: str, extra: str = "") -> str:
    return (
        f'tables {{ name: "{name}" kind: "bag" num_embeddings: 64 embedding_dim: 8 '
        f'feature_names: "{name}_f" {extra}}}\n'
    )


def ignored(table: str, by: str, stack: str) -> str:
    return (
        f'table `{table}` has stack_table_name "s", but {by} already put it in stack `{stack}`: '
        "prepare_tables_for_stacking only groups tables in no stack yet, so the name is ignored "
        "without a word"
    )


AUTOMATIC = (
    'drop stack_table_name "s", or stack the tables of "s" with stack_tables before the automatic '
    "stacking"
)


def test_the_collections_auto_stack() -> None:
    text = bag("a", NAMED) + bag("b", NAMED) + bag("c")
    found = findings_of_rule(
        "TE852", text + f"collection {{ batch_size: 8 auto_stack: true {SGD} }}"
    )
    assert found == [
        (
            ("tables", 0, "stack_table_name"),
            ignored("a", "the collection's auto_stack", "a_b_c"),
            AUTOMATIC,
        ),
        (
            ("tables", 1, "stack_table_name"),
            ignored("b", "the collection's auto_stack", "a_b_c"),
            AUTOMATIC,
        ),
    ]


def test_an_explicit_call_and_an_auto_stack_tables_call() -> None:
    text = bag("a", NAMED) + bag("b", NAMED) + bag("c")
    found = findings_of_rule(
        "TE852", text + 'stack_calls { call: "stack_tables" tables: "a" tables: "c" }\n'
    )
    assert found == [
        (
            ("tables", 0, "stack_table_name"),
            ignored("a", "stack_calls[0] (stack_tables)", "a_c"),
            'drop stack_table_name "s", or name that stack_tables call\'s stack "s"',
        )
    ]
    auto = bag("a", NAMED) + 'stack_calls { call: "auto_stack_tables" }\n'
    assert findings_of_rule("TE852", auto) == [
        (
            ("tables", 0, "stack_table_name"),
            ignored("a", "stack_calls[0] (auto_stack_tables)", "a"),
            AUTOMATIC,
        )
    ]


def test_names_that_are_honoured() -> None:
    both = bag("a", NAMED) + bag("b", NAMED)
    # prepare_tables_for_stacking (the default: no earlier call) groups them under it.
    assert findings_of_rule("TE852", both + f"collection {{ batch_size: 8 {SGD} }}") == []
    # An explicit call that gives the stack the same name.
    named = 'stack_calls { call: "stack_tables" tables: "a" tables: "b" name: "s" }\n'
    assert findings_of_rule("TE852", both + named) == []
