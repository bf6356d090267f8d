"""jax-excess-padding on specs made from stand-in objects (tests/test_jax_front_oracle_stacking.py
holds its condition and figures against the library's warning)."""

from __future__ import annotations

import pytest

from tests.jax_objects import AdagradOptimizerSpec, FeatureSpec, TableSpec, codes
from tpuemb_cli.jax import lint_jax


@pytest.mark.parametrize(
    ("dims", "found"),
    [((8, 20), ["TE678"]), ((8, 8), []), ((1, 8), []), ((9, 16), []), ((16, 17), ["TE678"])],
)
def test_padded_dimensions_that_differ(dims: tuple[int, int], found: list[str]) -> None:
    features = [
        FeatureSpec(f"f{name}", TableSpec(name, embedding_dim=dim), output_shape=(128, dim))
        for name, dim in zip("ab", dims, strict=True)
    ]
    assert codes(features, stacks={"s": ["a", "b"]}) == found


def test_the_bytes_count_the_slot_variables() -> None:
    features = [
        FeatureSpec(
            f"f{name}",
            TableSpec(
                name, vocabulary_size=100, embedding_dim=dim, optimizer=AdagradOptimizerSpec()
            ),
            output_shape=(128, dim),
        )
        for name, dim in (("a", 64), ("b", 8))
    ]
    (finding,) = lint_jax(
        features, global_device_count=1, num_sc_per_device=2, stacks={"s": ["a", "b"]}
    )
    # b: 100 rows pad to 112 (8 x 2 SparseCores), 8 -> 64 columns: 56 x 112 = 6,272 values.
    assert (
        "6,272 of its 14,336 values (43.8%) are padding beyond each table's own, 50,176 bytes in "
        "its parameters and 1 slot variable"
    ) in finding.message
