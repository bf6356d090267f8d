import json
from pathlib import Path

from tests.sparsecore_specs import SPARSECORE_SPEC, check, replaced


def test_clean_spec_passes(tmp_path: Path) -> None:
    code, stdout, stderr, _ = check(tmp_path, SPARSECORE_SPEC)
    assert (code, stdout, stderr) == (0, "All checks passed (1 file checked).\n", "")


def test_sequence_feature_without_output_shape(tmp_path: Path) -> None:
    # max_sequence_length and the batch size do not help: TPUEmbeddingV2 reads output_shape only.
    text = replaced(
        ("output_shape: [16]}", "max_sequence_length: 20}"),
        ("accelerator: v5p}", "accelerator: v5p, per_replica_batch_size: 16}"),
    )
    code, stdout, stderr, path = check(tmp_path, text)
    assert (code, stderr) == (1, "")
    assert stdout == (
        f'{path}:5:5: TE661 [error] feature "watched" has no output_shape; TPUEmbeddingV2 reads '
        "a feature's samples from output_shape alone and fails when it is built (ValueError: "
        "Cannot iterate over a shape with unknown rank.)\n"
        "Found 1 error in 1 file (1 file checked).\n"
    )
    code, stdout, _, _ = check(tmp_path, text, "--format", "json")
    assert json.loads(stdout)["findings"] == [
        {
            "file": str(path),
            "rule": "TE661",
            "name": "sparsecore-missing-output-shape",
            "severity": "error",
            "message": 'feature "watched" has no output_shape; TPUEmbeddingV2 reads a feature\'s '
            "samples from output_shape alone and fails when it is built (ValueError: Cannot "
            "iterate over a shape with unknown rank.)",
            "help": "set output_shape: [16, 20] (the per-replica batch, by max_sequence_length)",
            "field": "features[0]",
            "line": 5,
            "column": 5,
            "end_line": 5,
            "end_column": 59,
        }
    ]


def test_without_a_batch_size_only_te661_reports_it(tmp_path: Path) -> None:
    code, stdout, _, path = check(tmp_path, replaced((", output_shape: [16]}", "}")))
    assert code == 1
    assert stdout.splitlines() == [
        f'{path}:5:5: TE661 [error] feature "watched" has no output_shape; TPUEmbeddingV2 reads '
        "a feature's samples from output_shape alone and fails when it is built (ValueError: "
        "Cannot iterate over a shape with unknown rank.)",
        "Found 1 error in 1 file (1 file checked).",
    ]


def test_not_a_sparsecore_spec(tmp_path: Path) -> None:
    # TPUEmbedding derives the shape from the batch size: no finding.
    text = replaced(
        ("output_shape: [16]}", "max_sequence_length: 20}"),
        ("accelerator: v5p}", "accelerator: v5p, per_replica_batch_size: 16}"),
        ("sparse_core: {}\n", ""),
    )
    code, stdout, _, _ = check(tmp_path, text)
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")
