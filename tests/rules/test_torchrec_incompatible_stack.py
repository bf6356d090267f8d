"""torchrec-incompatible-stack (TE844)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of


def table(name: str, kind: str = "bag", pooling: str = "", dim: int = 8, extra: str = "") -> str:
    pool = f' pooling: "{pooling}"' if pooling else ""
    seq = " max_seq_len: 4" if kind == "sequence" else ""
    return (
        f'tables {{ name: "{name}" kind: "{kind}"{pool}{seq} num_embeddings: 64 '
        f'embedding_dim: {dim} feature_names: "{name}"{extra} }}\n'
    )


def test_bag_and_sequence_in_one_call() -> None:
    found = findings_of(
        table("a")
        + table("s", "sequence")
        + 'stack_calls { call: "stack_tables" tables: ["a", "s"] }\nprepare {}'
    )
    assert [(r, p) for r, p, *_ in found] == [("TE844", ("tables", 1, "kind"))]
    assert "cannot stack pooled and sequence tables together" in found[0][2]


def test_poolings_in_one_stack_table_name_group() -> None:
    group = ' stack_table_name: "g"'
    found = findings_of(
        table("a", pooling="SUM", extra=group)
        + table("b", pooling="MEAN", extra=group)
        + "prepare {}"
    )
    assert found == [
        (
            "TE844",
            ("tables", 1, "pooling"),
            "table `b` pools by MEAN and is stacked as stack `g` with table `a`, which pools by "
            "SUM: stack_tables raises ValueError (different pooling types)",
            "use pooling 'SUM', or stack the two apart",
        )
    ]
    # Auto stacking groups by pooling itself: no stack mixes them.
    auto = findings_of(
        table("a", pooling="SUM", extra=group)
        + table("b", pooling="MEAN", extra=group)
        + 'collection { auto_stack: true batch_size: 2 optimizer { type: "SGD" } }'
    )
    assert "TE844" not in [rule for rule, *_ in auto]


def test_fail_on_excess_padding() -> None:
    found = findings_of(
        table("a", dim=8)
        + table("b", dim=20)
        + 'stack_calls { call: "stack_tables" tables: ["a", "b"] fail_on_excess_padding: true }\n'
        + "prepare {}"
    )
    assert [(r, p) for r, p, *_ in found] == [
        ("TE844", ("stack_calls", 0, "fail_on_excess_padding"))
    ]
