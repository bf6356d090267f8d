from pathlib import Path

import pytest

from tests.sparsecore_specs import check, replaced

GLOBAL = "optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}"


def test_each_dropped_setting(tmp_path: Path) -> None:
    text = replaced(
        (
            GLOBAL,
            "optimizer: {adam: {lazy_adam: false}, learning_rate: {constant: 0.05},\n"
            "  clipvalue: {scalar: 1.0}, clip_weight_min: -2.0, clip_weight_max: 2.0,\n"
            "  low_dimensional_packing_status: true}",
        ),
        (
            "dim: 16}",
            "dim: 16}\n  - {name: ad, vocabulary_size: 100, dim: 8, optimizer: {ftrl: "
            "{allow_zero_accumulator: true}, use_gradient_accumulation: false}}",
        ),
        (
            "output_shape: [16]}",
            "output_shape: [16]}\n  - {name: clicked, table: ad, output_shape: [16]}",
        ),
    )
    code, stdout, stderr, path = check(tmp_path, text, "--select", "TE662")
    drops = "without a word"
    assert (code, stderr) == (0, "")
    assert stdout == (
        f"{path}:1:20: TE662 [warning] SparseCore drops `adam.lazy_adam` {drops} (non-lazy "
        "Adam): TPUEmbeddingV2 passes it to no SparseCore op, so Adam runs as the SparseCore op "
        "does, with no lazy_adam switch\n"
        f"{path}:2:3: TE662 [warning] SparseCore drops `clipvalue` {drops} (gradient clipping): "
        "TPUEmbeddingV2 passes it to no SparseCore op, so gradients are not clipped\n"
        f"{path}:2:29: TE662 [warning] SparseCore drops `clip_weight_min` {drops} (clipping of "
        "the weights): TPUEmbeddingV2 passes it to no SparseCore op, so the updated weights are "
        "not clipped\n"
        f"{path}:2:52: TE662 [warning] SparseCore drops `clip_weight_max` {drops} (clipping of "
        "the weights): TPUEmbeddingV2 passes it to no SparseCore op, so the updated weights are "
        "not clipped\n"
        f"{path}:3:3: TE662 [warning] SparseCore drops `low_dimensional_packing_status` {drops} "
        "(packing of low-dimensional tables): TPUEmbeddingV2 passes it to no SparseCore op, so "
        "tables are laid out by SparseCore's own rules\n"
        f"{path}:6:65: TE662 [warning] SparseCore drops `ftrl.allow_zero_accumulator` {drops} "
        "(a zero FTRL accumulator): TPUEmbeddingV2 passes it to no SparseCore op, so FTRL runs "
        "as the SparseCore op does, with no allow_zero_accumulator switch\n"
        f"{path}:6:96: TE662 [warning] SparseCore drops `use_gradient_accumulation` {drops} (no "
        "gradient accumulation): TPUEmbeddingV2 passes it to no SparseCore op, so each row's "
        "gradients are still summed over the batch\n"
        "Found 7 warnings in 1 file (1 file checked).\n"
    )


def test_defaults_written_out_are_not_reported(tmp_path: Path) -> None:
    text = replaced(
        (
            GLOBAL,
            "optimizer: {adam: {lazy_adam: true}, use_gradient_accumulation: true,\n"
            "  low_dimensional_packing_status: false}",
        ),
    )
    code, stdout, _, _ = check(tmp_path, text)
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_a_global_optimizer_no_table_uses_is_not_reported(tmp_path: Path) -> None:
    text = replaced(
        (GLOBAL, "optimizer: {sgd: {}, clipvalue: {scalar: 1.0}}"),
        ("dim: 16}", "dim: 16, optimizer: {sgd: {}}}"),
    )
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE662")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_not_a_sparsecore_spec(tmp_path: Path) -> None:
    text = replaced(
        (GLOBAL, "optimizer: {adagrad: {}, clipvalue: {scalar: 1.0}}"), ("sparse_core: {}\n", "")
    )
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE662")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


@pytest.mark.parametrize(
    "setting,superseded",
    [
        ("clipvalue: {range: {min: 5.0, max: -5.0}}", "TE301"),
        ("low_dimensional_packing_status: true", "TE306"),
    ],
)
def test_a_dropped_setting_is_not_judged_as_tensorcores_use_it(
    tmp_path: Path, setting: str, superseded: str
) -> None:
    # TPUEmbeddingV2 never passes these on: the config rule's TensorCore finding (a reversed
    # range replaces every gradient; packing applies to dims 1, 2, 4) would mislead.
    optimizer = "optimizer: {adagrad: {}, learning_rate: {constant: 0.05}"
    text = replaced((optimizer + "}", optimizer + ", " + setting + "}"))
    _, stdout, _, _ = check(tmp_path, text, "--select", "TE662", "--select", superseded)
    assert [line.split()[1] for line in stdout.splitlines()[:-1]] == ["TE662"]
    plain = text.replace("sparse_core: {}\n", "")
    _, stdout, _, _ = check(tmp_path, plain, "--select", "TE662", "--select", superseded)
    assert [line.split()[1] for line in stdout.splitlines()[:-1]] == [superseded]
