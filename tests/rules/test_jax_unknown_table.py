"""jax-unknown-table on a JAX spec written by hand (the library's objects cannot express it)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main


def test_a_feature_that_names_no_table_of_the_spec(tmp_path: Path) -> None:
    # A hand-written (or edited) JAX spec: the library's objects cannot express it, so nothing
    # else reported it, and the feature's other rules had no table to judge it by.
    path = tmp_path / "model.spec.yaml"
    path.write_text(
        "jax: {global_device_count: 8, num_sc_per_device: 4}\n"
        "tables: [{name: video, vocabulary_size: 1000, dim: 16}]\n"
        "features:\n"
        "- {name: watched, table: videos, input_shape: [128], output_shape: [128, 16]}\n"
        "- {name: by_index, table: '#0', input_shape: [128], output_shape: [128, 16]}\n"
        "- {name: out_of_range, table: '#1', input_shape: [128], output_shape: [128, 16]}\n"
    )
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(path)])
    assert result.exit_code == 1
    assert result.stdout.replace(str(path), "PATH").splitlines() == [
        'PATH:4:19: TE699 [error] feature "watched" uses table "videos", which the spec does '
        "not define",
        'PATH:6:24: TE699 [error] feature "out_of_range" uses table "#1", which the spec does '
        "not define",
        "Found 2 errors in 1 file (1 file checked).",
    ]
