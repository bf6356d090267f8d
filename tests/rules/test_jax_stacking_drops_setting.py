"""jax-stacking-drops-setting on specs made from stand-in objects, and on objects the library
stacked already (tests/test_jax_front_oracle_stacking.py runs the library)."""

from __future__ import annotations

from tests.jax_objects import FeatureSpec, Setting, StackedTableSpec, TableSpec, codes


class Quantization:
    num_buckets, min_value, max_value = 16, 0.0, 1.0


def test_every_stacked_table_alone_or_not() -> None:
    tables = [TableSpec("a", quantization_config=Quantization()), TableSpec("b")]
    features = [FeatureSpec(f"f{t.name}", t) for t in tables]
    assert codes(features, auto_stack=True) == ["TE677"]
    assert codes(features, stacks={"s": ["a", "b"]}) == ["TE677"]
    assert codes(features, stacks={"s": ["b"]}) == []
    assert codes(features) == []


def test_a_one_table_stack_the_library_made_is_told_by_what_it_dropped() -> None:
    # stack_tables left both out of the StackedTableSpec of "a", named after it.
    stacked = StackedTableSpec("a", 1024, 16, 128)
    table = TableSpec(
        "a",
        suggested_coo_buffer_size_per_device=4096,
        _setting_in_stack=Setting("a", 1024, 16),
        _stacked_table_spec=stacked,
    )
    assert codes([FeatureSpec("fa", table)]) == ["TE677"]
