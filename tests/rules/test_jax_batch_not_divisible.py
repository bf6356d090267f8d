"""jax-batch-not-divisible on specs made from jax-tpu-embedding's objects (stand-ins here;
tests/test_jax_front_oracle.py has the library's own)."""

from __future__ import annotations

from tests.jax_objects import FeatureSpec, TableSpec, codes
from tpuemb_cli.jax import lint_jax


def test_a_batch_the_sparsecores_do_not_divide() -> None:
    findings = lint_jax(
        [FeatureSpec("f", TableSpec("t"), (100, 1), (100, 16))],
        global_device_count=8,
        num_sc_per_device=4,
    )
    assert [(f.rule, f.path, f.message, f.fix) for f in findings] == [
        (
            "TE691",
            ("features", 0, "input_shape", 0),
            'feature "f" has a batch of 100, which 8 devices x 4 SparseCores (32 feature '
            "slices) do not divide: the library raises ValueError at the first lookup on the TPU",
            "make the batch a multiple of 32 (e.g. 96 or 128)",
        )
    ]
    assert codes([FeatureSpec("f", TableSpec("t"), (16,), (16, 16))]) == ["TE691"]
