"""jax-excess-padding on specs made from stand-in objects (tests/test_jax_front_oracle_stacking.py
holds its condition and figures against the library's warning)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.jax_objects import AdagradOptimizerSpec, FeatureSpec, TableSpec, codes
from tpuemb_cli.cli import main
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


def test_it_gives_way_to_a_fail_on_excess_padding_that_did_not_load(tmp_path: Path) -> None:
    # Issue 36 review: `fail_on_excess_padding: true` in YAML (no list) was TE007 in JSON's
    # words, and TE678 warned beside it of what the stack the user meant to fail on does.
    from google.protobuf import text_format

    from tpuemb_cli.jax import spec_from_jax

    features = [
        FeatureSpec(f"f{name}", TableSpec(name, embedding_dim=dim), output_shape=(128, dim))
        for name, dim in (("a", 8), ("b", 20))
    ]
    spec = spec_from_jax(
        features, global_device_count=8, num_sc_per_device=4, stacks={"s": ["a", "b"]}
    )
    source = tmp_path / "spec.textproto"
    header = "# proto-message: tpuemb.spec.EmbeddingSpec\n"
    source.write_text(header + text_format.MessageToString(spec))
    yaml = CliRunner().invoke(main, ["convert", "--to", "yaml", str(source)]).stdout
    for text, found in ((yaml, ["TE678"]), (yaml + "  fail_on_excess_padding: true\n", ["TE007"])):
        path = tmp_path / "spec.yaml"
        path.write_text(text)
        result = CliRunner().invoke(main, ["check", "--format", "json", str(path)])
        findings = json.loads(result.stdout)["findings"]
        assert [f["rule"] for f in findings] == found, findings
    assert "must be a YAML sequence (a list), not a boolean" in findings[0]["message"]
