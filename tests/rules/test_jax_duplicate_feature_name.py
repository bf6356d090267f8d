"""jax-duplicate-feature-name on specs made from jax-tpu-embedding's objects (stand-ins here;
tests/test_jax_front_oracle.py has the library's own)."""

from __future__ import annotations

from tests.jax_objects import FeatureSpec, TableSpec
from tpuemb_cli.jax import lint_jax


def test_two_features_of_one_name() -> None:
    features = [FeatureSpec("ids", TableSpec("a")), FeatureSpec("ids", TableSpec("b"))]
    findings = lint_jax(features, global_device_count=8, num_sc_per_device=4)
    assert [(f.rule, f.path, f.message) for f in findings] == [
        (
            "TE695",
            ("features", 1, "name"),
            'feature "ids" has the name of feature 0: the library raises ValueError at the first '
            "training step",
        )
    ]
