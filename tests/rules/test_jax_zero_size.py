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
