"""jax-unhashable-optimizer on specs made from stand-in objects
(tests/test_jax_front_oracle_stacking.py runs the library and sees it raise TypeError where the
rule fires)."""

from __future__ import annotations

from tests.jax_objects import (
    AdagradOptimizerSpec,
    ArrayRate,
    FeatureSpec,
    SGDOptimizerSpec,
    TableSpec,
    codes,
)
from tpuemb_cli.jax import lint_jax


def test_each_stacked_table_with_an_array_is_reported_at_its_attribute() -> None:
    features = [
        FeatureSpec("fa", TableSpec("a", optimizer=SGDOptimizerSpec(ArrayRate(0.1)))),
        FeatureSpec("fb", TableSpec("b", optimizer=AdagradOptimizerSpec(0.1, ArrayRate(0.1)))),
        FeatureSpec("fc", TableSpec("c")),
    ]
    found = lint_jax(features, global_device_count=1, num_sc_per_device=2, auto_stack=True)
    assert [(f.rule, f.path) for f in found] == [
        ("TE676", ("tables", 0, "jax", "optimizer", "unhashable", 0)),
        ("TE676", ("tables", 1, "jax", "optimizer", "unhashable", 0)),
    ]
    assert "(initial_accumulator_value: an array" in found[1].message


def test_only_where_the_library_hashes_it() -> None:
    table = TableSpec("a", optimizer=SGDOptimizerSpec(ArrayRate(0.1)))
    features = [FeatureSpec("fa", table), FeatureSpec("fb", TableSpec("b"))]
    assert codes(features) == []
    assert codes(features, stacks={"s": ["b"]}) == []
    assert codes(features, stacks={"s": ["a", "b"]}) == ["TE676"]
