"""torchrec-ignored-table-limit (TE857) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of_rule


def bag(name: str, limits: str) -> str:
    return (
        f'tables {{ name: "{name}" kind: "bag" num_embeddings: 64 embedding_dim: 8 '
        f'feature_names: "f{name}" {limits} stack_table_name: "s" }}\n'
    )


def test_limits_below_another_tables() -> None:
    text = (
        bag("a", "max_ids_per_partition: 64 suggested_coo_buffer_size_per_device: 100")
        + bag(
            "b",
            "max_ids_per_partition: 512 max_unique_ids_per_partition: 32 "
            "suggested_coo_buffer_size_per_device: 200",
        )
        + bag("c", "max_unique_ids_per_partition: 512")
    )
    assert findings_of_rule("TE857", text) == [
        (
            ("tables", 0, "max_ids_per_partition"),
            "table `a` has max_ids_per_partition 64, but its stack `s` uses the largest of its "
            "tables', 512 (table `b`'s): torchrec ignores 64",
            "set max_ids_per_partition to 512, or stack `a` apart",
        ),
        (
            ("tables", 0, "suggested_coo_buffer_size_per_device"),
            "table `a` has suggested_coo_buffer_size_per_device 100, but its stack `s` uses the "
            "largest of its tables', 200 (table `b`'s): torchrec ignores 100",
            "set suggested_coo_buffer_size_per_device to 200, or stack `a` apart",
        ),
        (
            ("tables", 1, "max_unique_ids_per_partition"),
            "table `b` has max_unique_ids_per_partition 32, but its stack `s` uses the largest of "
            "its tables', 512 (table `c`'s): torchrec ignores 32",
            "set max_unique_ids_per_partition to 512, or stack `b` apart",
        ),
    ]


def test_a_limit_below_the_default_of_a_table_that_leaves_it_out() -> None:
    assert findings_of_rule("TE857", bag("a", "max_ids_per_partition: 64") + bag("b", "")) == [
        (
            ("tables", 0, "max_ids_per_partition"),
            "table `a` has max_ids_per_partition 64, but its stack `s` uses the largest of its "
            "tables', 256 (the default): torchrec ignores 64",
            "set max_ids_per_partition to 256, or stack `a` apart",
        )
    ]


def test_limits_the_stack_keeps() -> None:
    # The largest, the defaults, one COO size set (the stack's), and one table a stack.
    assert findings_of_rule("TE857", bag("a", "max_ids_per_partition: 512") + bag("b", "")) == []
    assert findings_of_rule("TE857", bag("a", "") + bag("b", "")) == []
    coo = bag("a", "suggested_coo_buffer_size_per_device: 100") + bag("b", "")
    assert findings_of_rule("TE857", coo) == []
    alone = (
        'tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "f" '
        "max_ids_per_partition: 8 }\n"
    )
    assert findings_of_rule("TE857", alone) == []
