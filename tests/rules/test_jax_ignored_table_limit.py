"""jax-ignored-table-limit on specs made from jax-tpu-embedding's objects (stand-ins here;
tests/test_jax_front_oracle.py has the library's own)."""

from __future__ import annotations

from tests.jax_objects import FeatureSpec, TableSpec, codes
from tpuemb_cli.jax import lint_jax


def test_a_tables_own_limit_in_a_stack_of_two() -> None:
    a, b = TableSpec("a", max_ids_per_partition=1024), TableSpec("b")
    features = [FeatureSpec("fa", a), FeatureSpec("fb", b)]
    findings = lint_jax(
        features, global_device_count=8, num_sc_per_device=4, stacks={"ab": ["a", "b"]}
    )
    assert [(f.rule, f.path, f.message) for f in findings] == [
        (
            "TE693",
            ("tables", 0, "jax", "max_ids_per_partition"),
            'table "a" sets max_ids_per_partition 1024, but it is stacked in "ab" with 1 other '
            "table(s): the library ignores a table's limits in a stack of several and uses the "
            "stack's (256 by default)",
        )
    ]
    # Alone, its limit is the stack's.
    assert codes(features, stacks={"a": ["a"]}) == []


def test_the_stacks_own_limit_is_the_one_compared() -> None:
    a, b = TableSpec("a", max_ids_per_partition=512), TableSpec("b", max_ids_per_partition=1024)
    features = [FeatureSpec("fa", a), FeatureSpec("fb", b)]
    findings = lint_jax(
        features,
        global_device_count=8,
        num_sc_per_device=4,
        stacks={"ab": ["a", "b"]},
        stack_limits={"ab": (512, 256)},
    )
    # "a" asks for what the stack has: nothing is lost.
    assert [(f.path, f.message) for f in findings] == [
        (
            ("tables", 1, "jax", "max_ids_per_partition"),
            'table "b" sets max_ids_per_partition 1024, but it is stacked in "ab" with 1 other '
            "table(s): the library ignores a table's limits in a stack of several and uses the "
            "stack's (512, from jax.stack_max_ids_per_partition)",
        )
    ]


def test_a_stack_auto_stacking_makes() -> None:
    a, b = TableSpec("a", max_unique_ids_per_partition=64), TableSpec("b")
    features = [FeatureSpec("fa", a), FeatureSpec("fb", b)]
    findings = lint_jax(features, global_device_count=8, num_sc_per_device=4, auto_stack=True)
    assert [(f.rule, f.path) for f in findings] == [
        ("TE693", ("tables", 0, "jax", "max_unique_ids_per_partition"))
    ]
    assert 'stacked in "a_b" with 1 other' in findings[0].message
