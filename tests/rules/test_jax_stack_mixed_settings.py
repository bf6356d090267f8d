"""jax-stack-mixed-settings on specs made from jax-tpu-embedding's objects (stand-ins here;
tests/test_jax_front_oracle.py has the library's own)."""

from __future__ import annotations

from tests.jax_objects import AdagradOptimizerSpec, FeatureSpec, SGDOptimizerSpec, TableSpec, codes
from tpuemb_cli.jax import lint_jax


def test_a_stack_of_two_optimizers_and_two_combiners() -> None:
    a = TableSpec("a", optimizer=SGDOptimizerSpec(0.1))
    b = TableSpec("b", optimizer=AdagradOptimizerSpec(0.1), combiner="mean")
    findings = lint_jax(
        [FeatureSpec("fa", a), FeatureSpec("fb", b)],
        global_device_count=8,
        num_sc_per_device=4,
        stacks={"ab": ["a", "b"]},
    )
    assert [(f.rule, f.path, f.message) for f in findings] == [
        (
            "TE692",
            ("tables", 1, "combiner"),
            'table "b" combines with "mean", but table "a", first in stack "ab", with "sum": '
            "stack_tables raises ValueError",
        ),
        (
            "TE692",
            ("tables", 1, "jax", "optimizer"),
            'table "b" trains with AdagradOptimizerSpec(learning_rate=0.1, '
            'initial_accumulator_value=0.1), but table "a", first in stack "ab", with '
            "SGDOptimizerSpec(learning_rate=0.1): stack_tables raises ValueError; auto-stacking "
            "trains the whole stack with the first table's optimizer",
        ),
    ]


def test_one_optimizer_class_with_two_learning_rates_is_two_optimizers() -> None:
    a, b = TableSpec("a", optimizer=SGDOptimizerSpec(0.1)), TableSpec("b")
    features = [FeatureSpec("fa", a), FeatureSpec("fb", b)]
    assert codes(features, stacks={"ab": ["a", "b"]}) == ["TE692"]
    assert codes(features, stacks={"a": ["a"], "b": ["b"]}) == []
