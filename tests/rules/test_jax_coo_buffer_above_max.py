"""jax-coo-buffer-above-max on specs made from jax-tpu-embedding's objects (stand-ins here;
tests/test_jax_prepared_oracle.py runs the library and sees it abort where the rule fires)."""

from __future__ import annotations

import pytest

from tests.jax_objects import FeatureSpec, TableSpec, codes
from tpuemb_cli.jax import lint_jax


def test_the_message_says_both_sizes_and_the_fix() -> None:
    table = TableSpec("c", 77, 8, suggested_coo_buffer_size_per_device=10**6)
    (finding,) = lint_jax(
        [FeatureSpec("fc", table, output_shape=(128, 8))],
        global_device_count=4,
        num_sc_per_device=2,
    )
    assert (finding.rule, finding.path) == (
        "TE698",
        ("tables", 0, "jax", "suggested_coo_buffer_size_per_device"),
    )
    assert "1,000,000 per device" in finding.message and "above the 4,096" in finding.message


@pytest.mark.parametrize(
    ("suggested", "devices", "cores", "max_ids", "found"),
    [
        (10**6, 4, 2, None, ["TE698"]),  # 256 x 2 x 8 = 4,096 at most
        (4096, 4, 2, None, []),
        (4090, 4, 2, None, []),  # rounded up to 16: 4,096
        (4097, 4, 2, None, ["TE698"]),  # rounded up to 4,112
        (10**6, 4, 2, 2**20, []),  # a larger max_ids_per_partition allows it
    ],
)
def test_a_suggested_coo_buffer_above_the_theoretical_max(
    suggested: int, devices: int, cores: int, max_ids: int | None, found: list[str]
) -> None:
    table = TableSpec(
        "c",
        77,
        8,
        max_ids_per_partition=256 if max_ids is None else max_ids,  # the library's default
        suggested_coo_buffer_size_per_device=suggested,
    )
    feature = FeatureSpec("fc", table, output_shape=(128, 8))
    assert codes([feature], global_device_count=devices, num_sc_per_device=cores) == found


def test_a_stacked_tables_suggested_coo_buffer_is_not_the_stacks() -> None:
    # stack_tables leaves a table's suggestion out of its stack: nothing to abort on.
    tables = [TableSpec(name, 77, 8, suggested_coo_buffer_size_per_device=10**6) for name in "ab"]
    features = [FeatureSpec(f"f{t.name}", t, output_shape=(128, 8)) for t in tables]
    assert "TE698" not in codes(
        features, global_device_count=4, num_sc_per_device=2, stacks={"ab": ["a", "b"]}
    )
