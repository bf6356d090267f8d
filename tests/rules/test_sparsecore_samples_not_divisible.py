import json
from pathlib import Path

from tests.sparsecore_specs import check, replaced

TOPOLOGY = "topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}"


def test_six_samples_on_four_sparsecores(tmp_path: Path) -> None:
    code, stdout, stderr, path = check(
        tmp_path, replaced(("output_shape: [16]}", "output_shape: [3, 2]}"))
    )
    assert (code, stderr) == (1, "")
    assert stdout == (
        f'{path}:5:35: TE666 [error] feature "watched" has 6 samples a replica (output_shape '
        "[3, 2]), not a multiple of the 4 SparseCores a chip: TensorFlow rounds the samples of a "
        "SparseCore down to 1, and the SparseCore input ops fail (InvalidArgumentError: "
        "sample_count ... is not divisible by the number of sparsecores per chip)\n"
        "Found 1 error in 1 file (1 file checked).\n"
    )
    _, stdout, _, _ = check(
        tmp_path, replaced(("output_shape: [16]}", "output_shape: [3, 2]}")), "--format", "json"
    )
    assert json.loads(stdout)["findings"][0]["help"] == (
        "make the per-replica batch a multiple of 4, e.g. output_shape [4, 2]"
    )


def test_the_topologys_count_wins_over_the_chip_table(tmp_path: Path) -> None:
    text = replaced(
        ("output_shape: [16]}", "output_shape: [6]}"),
        (
            TOPOLOGY,
            "topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p, "
            "sparse_cores_per_chip: 2}",
        ),
    )
    code, stdout, _, _ = check(tmp_path, text)
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_no_count_known_says_nothing(tmp_path: Path) -> None:
    # v6e's SparseCores per chip are not in tpuemb's chip table, and the topology does not say.
    text = replaced(
        ("output_shape: [16]}", "output_shape: [6]}"),
        (TOPOLOGY, "topology: {num_hosts: 1, cores_per_host: 4, accelerator: v6e}"),
    )
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE666")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_not_a_sparsecore_spec(tmp_path: Path) -> None:
    text = replaced(("output_shape: [16]}", "output_shape: [6]}"), ("sparse_core: {}\n", ""))
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE666")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")
