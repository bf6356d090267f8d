"""jax-duplicate-feature-name on specs made from jax-tpu-embedding's objects (stand-ins here;
tests/test_jax_front_oracle.py has the library's own)."""

from __future__ import annotations

from pathlib import Path

from tests.jax_objects import FeatureSpec, TableSpec
from tests.jax_specs import check, one_finding, replaced
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


# jax-tpu-embedding's EmbeddingSpecProto (issue 36): `check` passed two features of one name.


def test_two_features_of_one_name_in_a_proto(tmp_path: Path) -> None:
    text = replaced(('feature_name: "ad"', 'feature_name: "liked"'))
    assert one_finding(tmp_path, text, "TE695") == (
        'PATH:66:7: TE695 [error] feature "liked" has the name of feature 1 of table "video" of '
        'stack "video_user": the library raises ValueError at the first training step'
    )


def test_features_of_their_own_names_in_a_proto_pass(tmp_path: Path) -> None:
    exit_code, stdout, _, _ = check(tmp_path, replaced())
    assert (exit_code, stdout) == (0, "All checks passed (1 file checked).\n")
