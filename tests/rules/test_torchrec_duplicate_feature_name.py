"""torchrec-duplicate-feature-name (TE854) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule

SGD = 'optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } }'
FIX = "give each table's feature a name of its own (rename `f` here)"


def table(name: str, dim: int = 8, kind: str = "bag", features: str = '"f"') -> str:
    extra = "max_seq_len: 2 " if kind == "sequence" else ""
    return (
        f'tables {{ name: "{name}" kind: "{kind}" num_embeddings: 64 embedding_dim: {dim} '
        f"feature_names: [{features}] {extra}}}\n"
    )


def test_one_feature_in_two_bag_tables() -> None:
    wide = table("a") + table("b", dim=16) + f"collection {{ batch_size: 8 {SGD} }}"
    assert findings_of_rule("TE854", wide) == [
        (
            ("tables", 1, "feature_names", 0),
            "feature `f` is in table `a` and again in table `b`: the collection returns a "
            "KeyedTensor with `f` twice, both of `b`'s 16 columns although `a`'s has 8, and its "
            "to_dict() raises RuntimeError (split_with_sizes)",
            FIX,
        )
    ]
    # No collection: the bag collection's behaviour (the default type).
    assert findings_of_rule("TE854", table("a") + table("b")) == [
        (
            ("tables", 1, "feature_names", 0),
            "feature `f` is in table `a` and again in table `b`: the collection returns a "
            "KeyedTensor with `f` twice, and its to_dict() keeps only `b`'s",
            FIX,
        )
    ]


def test_one_feature_in_two_sequence_tables() -> None:
    text = (
        table("a", kind="sequence")
        + table("b", kind="sequence")
        + f'collection {{ type: "SparseCoreFusedEmbeddingCollection" batch_size: 8 {SGD} }}'
    )
    assert findings_of_rule("TE854", text) == [
        (
            ("tables", 1, "feature_names", 0),
            "feature `f` is in table `a` and again in table `b`: the collection's output holds "
            "`f` once, from `b` only, and stack_gradients gives its one gradient to both tables",
            FIX,
        )
    ]


def test_the_last_table_is_the_last_in_the_stacks_order() -> None:
    # `c` is stacked with `a`, whose stack comes first: the collection maps `f` to `b`, the last
    # in its stacks' order (confirmed on CPU), not to `c`, the last in the tables' order.
    text = (
        table("a", features='"g"')
        + table("b")
        + table("c", dim=16)
        + 'stack_calls { call: "stack_tables" tables: "a" tables: "c" }\n'
    )
    assert findings_of_rule("TE854", text) == [
        (
            ("tables", 2, "feature_names", 0),
            "feature `f` is in table `b` and again in table `c`: the collection returns a "
            "KeyedTensor with `f` twice, both of `b`'s 8 columns although `c`'s has 16, and its "
            "to_dict() raises RuntimeError (split_with_sizes)",
            FIX,
        )
    ]


def test_twice_in_one_table_and_distinct_names() -> None:
    assert findings_of_rule("TE854", table("a", features='"f", "g", "f"')) == [
        (
            ("tables", 0, "feature_names", 2),
            "feature `f` is twice in table `a`: the collection looks it up twice and returns a "
            "KeyedTensor with `f` twice (to_dict() keeps one)",
            FIX,
        )
    ]
    assert findings_of_rule("TE854", table("a") + table("b", features='"g"')) == []


def test_none_where_torchrec_refuses_first() -> None:
    # Two tables of one name (torchrec-duplicate-table-name's): stack_tables refuses them.
    text = table("a") + table("b", features='"g"') + table("a", dim=16) + "prepare {}"
    assert findings_of_rule("TE854", text) == []
