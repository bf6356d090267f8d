from pathlib import Path

from tests.sparsecore_specs import check, replaced

CUSTOM = "optimizer: {custom: {type: CustomOptimizer}, learning_rate: {constant: 0.05}}"


def test_custom_optimizer(tmp_path: Path) -> None:
    code, stdout, stderr, path = check(
        tmp_path,
        replaced(("optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}", CUSTOM)),
        "--select",
        "TE664",
    )
    assert (code, stderr) == (1, "")
    assert stdout == (
        f"{path}:1:13: TE664 [error] SparseCore has no update for CustomOptimizer: "
        "TPUEmbeddingV2 is built, then its first apply_gradients raises ValueError: Unsupported "
        "optimizer in minibatching mode.\n"
        "Found 1 error in 1 file (1 file checked).\n"
    )


def test_every_other_spec_optimizer_is_supported(tmp_path: Path) -> None:
    for algorithm in ("sgd", "adagrad", "adagrad_momentum", "adam", "ftrl"):
        text = replaced(("{adagrad: {}", "{" + algorithm + ": {}"))
        code, stdout, _, _ = check(tmp_path, text, "--select", "TE664")
        assert (algorithm, code, stdout) == (
            algorithm,
            0,
            "All checks passed (1 file checked).\n",
        )


def test_not_a_sparsecore_spec(tmp_path: Path) -> None:
    text = replaced(
        ("optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}", CUSTOM),
        ("sparse_core: {}\n", ""),
    )
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE664")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_the_compiled_configs_missing_algorithm_is_not_reported_twice(tmp_path: Path) -> None:
    # TE201 (no algorithm in the compiled config) is the same mistake on a SparseCore spec.
    sparsecore = replaced(("optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}", CUSTOM))
    code, stdout, _, _ = check(tmp_path, sparsecore, "--select", "TE201", "--select", "TE664")
    assert (code, [line.split()[1] for line in stdout.splitlines()[:-1]]) == (1, ["TE664"])
    plain = replaced(
        ("optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}", CUSTOM),
        ("sparse_core: {}\n", ""),
    )
    code, stdout, _, _ = check(tmp_path, plain, "--select", "TE201", "--select", "TE664")
    assert (code, [line.split()[1] for line in stdout.splitlines()[:-1]]) == (1, ["TE201"])
