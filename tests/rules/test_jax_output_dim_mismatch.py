from pathlib import Path

from tests.jax_objects import FeatureSpec, TableSpec
from tests.jax_specs import one_finding, replaced
from tpuemb_cli.jax import lint_jax


def test_a_wider_output(tmp_path: Path) -> None:
    text = replaced(("output_shape: 12\n", "output_shape: 16\n"))
    assert one_finding(tmp_path, text, "TE690") == (
        'PATH:44:7: TE690 [error] feature "viewer" outputs 16 values a sample, but table "user" '
        "has embedding_dim 12: the library raises ValueError at the first lookup"
    )


def test_a_narrower_output(tmp_path: Path) -> None:
    text = replaced(("output_shape: 64\n", "output_shape: 32\n"))
    assert one_finding(tmp_path, text, "TE690") == (
        'PATH:70:7: TE690 [error] feature "ad" outputs 32 values a sample, but table "ads" has '
        "embedding_dim 64: the lookup is cut to its first columns or returned whole, by path"
    )


# A spec made from jax-tpu-embedding's objects (stand-ins here).


def test_an_output_dimension_not_the_tables() -> None:
    findings = lint_jax(
        [FeatureSpec("f", TableSpec("t"), output_shape=(128, 8))],
        global_device_count=8,
        num_sc_per_device=4,
    )
    assert [(f.rule, f.path, f.message) for f in findings] == [
        (
            "TE690",
            ("features", 0, "output_shape", 1),
            'feature "f" outputs 8 values a sample, but table "t" has embedding_dim 16: the '
            "lookup is cut to its first columns or returned whole, by path",
        )
    ]
