"""jax-zero-size on specs made from jax-tpu-embedding's objects (stand-ins here;
tests/test_jax_front_oracle.py has the library's own)."""

from __future__ import annotations

from tests.jax_objects import FeatureSpec, TableSpec
from tpuemb_cli.jax import lint_jax


def test_a_table_of_no_rows_and_a_limit_of_zero() -> None:
    table = TableSpec("t", vocabulary_size=0, max_unique_ids_per_partition=0)
    findings = lint_jax([FeatureSpec("f", table)], global_device_count=8, num_sc_per_device=4)
    # Findings come in field-path order.
    assert [(f.rule, f.path) for f in findings] == [
        ("TE694", ("tables", 0, "jax", "max_unique_ids_per_partition")),
        ("TE694", ("tables", 0, "vocabulary_size")),
    ]
    assert findings[1].message == (
        'table "t" has vocabulary_size 0: a table of no rows, which the library accepts and no '
        "lookup can use"
    )


def test_a_stack_limit_of_zero_and_one_naming_no_stack() -> None:
    # The spec is clean until compiled: its stacked proto then has max_ids_per_partition 0
    # (TE687), and a limit for a stack the stacking does not make left every stack at 256.
    features = [FeatureSpec("fa", TableSpec("a")), FeatureSpec("fb", TableSpec("b"))]
    findings = lint_jax(
        features,
        global_device_count=8,
        num_sc_per_device=4,
        stacks={"s": ["a", "b"]},
        stack_limits={"s": (0, 64), "nostack": (128, 64)},
    )
    assert [(f.rule, f.path) for f in findings if f.rule == "TE694"] == [
        ("TE694", ("jax", "stack_max_ids_per_partition", "nostack")),
        ("TE694", ("jax", "stack_max_ids_per_partition", "s")),
        ("TE694", ("jax", "stack_max_unique_ids_per_partition", "nostack")),
    ]


def test_a_feature_of_a_negative_or_zero_batch() -> None:
    # The library takes both (tests/test_jax_front_oracle.py); -32 next to 32 in one stack makes a
    # stack of 0 samples whose compiled proto tpuemb's own TE686 refuses.
    table = TableSpec("t")
    features = [
        FeatureSpec("f", table, input_shape=(-32, 1), output_shape=(-32, 16)),
        FeatureSpec("g", table, input_shape=(0,), output_shape=(32, 16)),
    ]
    findings = lint_jax(features, global_device_count=1, num_sc_per_device=4)
    assert [(f.rule, f.path) for f in findings] == [
        ("TE694", ("features", 0, "input_shape", 0)),
        ("TE694", ("features", 0, "output_shape", 0)),
        ("TE694", ("features", 1, "input_shape", 0)),
    ]
    assert findings[1].message == (
        'feature "f" has output_shape [-32, 16], whose dimension 0 is -32: '
        "prepare_feature_specs_for_training and stack_tables accept it and count negative "
        "samples, and create_proto_from_feature_specs writes a stack whose total_sample_count "
        "its features' rows do not fit"
    )
    assert findings[2].message.endswith(
        "whose dimension 0 is 0: an empty shape, which the library accepts and no lookup can use"
    )
