from pathlib import Path

from tests.sparsecore_specs import check, replaced

GLOBAL = "optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}"
REFUSED = (
    "TPUEmbeddingV2 does not support weight decay and raises NotImplementedError when it is "
    "built: `{field}` is set ({value}), and TensorFlow refuses any value, even 0 or false"
)


def test_zero_and_false_are_refused_too(tmp_path: Path) -> None:
    text = replaced(
        (
            GLOBAL,
            "optimizer: {adagrad: {}, weight_decay_factor: 0.0,\n"
            "  multiply_weight_decay_factor_by_learning_rate: false}",
        )
    )
    code, stdout, stderr, path = check(tmp_path, text)
    assert (code, stderr) == (1, "")
    assert stdout == (
        f"{path}:1:26: TE663 [error] "
        + REFUSED.format(field="weight_decay_factor", value="0.0")
        + "\n"
        f"{path}:2:3: TE663 [error] "
        + REFUSED.format(field="multiply_weight_decay_factor_by_learning_rate", value="false")
        + "\nFound 2 errors in 1 file (1 file checked).\n"
    )


def test_a_tables_own_optimizer(tmp_path: Path) -> None:
    text = replaced(("dim: 16}", "dim: 16, optimizer: {sgd: {}, weight_decay_factor: 0.1}}"))
    code, stdout, _, path = check(tmp_path, text)
    assert (code, stdout) == (
        1,
        f"{path}:3:72: TE663 [error] "
        + REFUSED.format(field="weight_decay_factor", value="0.1")
        + "\nFound 1 error in 1 file (1 file checked).\n",
    )


def test_not_a_sparsecore_spec(tmp_path: Path) -> None:
    # TPUEmbedding accepts weight decay (and writes nothing for a factor of 0).
    text = replaced(
        (GLOBAL, "optimizer: {adagrad: {}, weight_decay_factor: 0.0}"), ("sparse_core: {}\n", "")
    )
    code, stdout, _, _ = check(tmp_path, text)
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")
