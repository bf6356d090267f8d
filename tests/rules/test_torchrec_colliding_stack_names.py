"""torchrec-colliding-stack-names (TE851) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule

SGD = 'optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } }'


def bag(name: str, extra: str = "") -> str:
    return (
        f'tables {{ name: "{name}" kind: "bag" num_embeddings: 64 embedding_dim: 8 '
        f'feature_names: "{name}_f" {extra}}}\n'
    )


def lost(first: str, by_first: str, second: str, by_second: str) -> str:
    return (
        f"two stacks are named `x`: the one of {first} (made by {by_first}) and the one of "
        f"{second} (made by {by_second}); prepare_tables_for_stacking keeps the first and drops "
        f"the other without a word, so table {second} gets no weight, its features are never "
        "looked up and checkpoints leave it out"
    )


def test_a_stack_table_name_equal_to_an_explicit_stacks() -> None:
    text = (
        bag("a")
        + bag("b")
        + bag("c", 'stack_table_name: "x" ')
        + 'stack_calls { call: "stack_tables" tables: "a" tables: "b" name: "x" }\n'
        + f"collection {{ batch_size: 8 {SGD} }}"
    )
    assert findings_of_rule("TE851", text) == [
        (
            ("tables", 2, "stack_table_name"),
            lost("`a`, `b`", "stack_calls[0] (stack_tables)", "`c`", 'stack_table_name "x"'),
            "give the stack of `c` a name of its own",
        )
    ]


def test_two_calls_of_one_name_and_a_tables_own_name() -> None:
    calls = (
        'stack_calls { call: "stack_tables" tables: "a" name: "x" }\n'
        'stack_calls { call: "stack_tables" tables: "b" name: "x" }\n'
    )
    assert findings_of_rule("TE851", bag("a") + bag("b") + calls) == [
        (
            ("stack_calls", 1, "name"),
            lost("`a`", "stack_calls[0] (stack_tables)", "`b`", "stack_calls[1] (stack_tables)"),
            "give the stack of `b` a name of its own",
        )
    ]
    own = bag("a") + bag("x") + 'stack_calls { call: "stack_tables" tables: "a" name: "x" }\n'
    assert findings_of_rule("TE851", own) == [
        (
            ("tables", 1, "name"),
            lost("`a`", "stack_calls[0] (stack_tables)", "`x`", "table `x`'s own name"),
            "give the stack of `x` a name of its own",
        )
    ]


def test_names_that_join_rather_than_collide() -> None:
    # A table whose own name is another's stack_table_name: prepare groups the two together.
    assert findings_of_rule("TE851", bag("a", 'stack_table_name: "b" ') + bag("b")) == []
    # One stack_table_name on several tables: one stack.
    shared = bag("a", 'stack_table_name: "x" ') + bag("b", 'stack_table_name: "x" ')
    assert findings_of_rule("TE851", shared) == []
    # Restacking the same table under one name leaves no table in the first stack.
    again = bag("a") + (
        'stack_calls { call: "stack_tables" tables: "a" name: "x" }\n'
        'stack_calls { call: "stack_tables" tables: "a" name: "x" }\n'
    )
    assert findings_of_rule("TE851", again) == []


def test_an_automatic_stack_named_as_an_explicit_one() -> None:
    # auto_stack names the stack of `b` and `c` `b_c`, the name stack_calls[0] gave `a`'s (on CPU:
    # the collection's one weight was `b_c` of `a`).
    text = (
        bag("a")
        + bag("b")
        + bag("c")
        + 'stack_calls { call: "stack_tables" tables: "a" name: "b_c" }\n'
        + f"collection {{ batch_size: 8 auto_stack: true {SGD} }}"
    )
    assert findings_of_rule("TE851", text) == [
        (
            ("collection", "auto_stack"),
            "two stacks are named `b_c`: the one of `a` (made by stack_calls[0] (stack_tables)) "
            "and the one of `b`, `c` (made by the collection's auto_stack); "
            "prepare_tables_for_stacking keeps the first and drops the other without a word, so "
            "tables `b`, `c` get no weight, their features are never looked up and checkpoints "
            "leave them out",
            "give the stack of `a` another name (an automatic stack is named after its tables)",
        )
    ]
