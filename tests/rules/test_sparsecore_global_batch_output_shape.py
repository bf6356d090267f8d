from pathlib import Path

from tests.sparsecore_specs import check, replaced

TOPOLOGY = "topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}"


def test_the_global_batch(tmp_path: Path) -> None:
    text = replaced(
        ("output_shape: [16]}", "output_shape: [1024]}"),
        (
            TOPOLOGY,
            "topology: {num_hosts: 2, cores_per_host: 4, per_replica_batch_size: 128, "
            "accelerator: v5p}",
        ),
    )
    code, stdout, stderr, path = check(tmp_path, text)
    assert (code, stderr) == (0, "")
    assert stdout == (
        f'{path}:5:50: TE665 [warning] feature "watched"\'s output_shape starts with 1024, the '
        "global batch (per_replica_batch_size 128 x 8 replicas); output_shape is per replica, so "
        "each replica's SparseCores plan for the global batch\n"
        "Found 1 warning in 1 file (1 file checked).\n"
    )


def test_without_a_batch_size_one_feature_is_the_replicas_times_another(tmp_path: Path) -> None:
    text = replaced(
        (
            "output_shape: [16]}",
            "output_shape: [64, 5]}\n  - {name: liked, table: video, output_shape: [16]}",
        ),
    )
    code, stdout, _, path = check(tmp_path, text)
    assert (code, stdout) == (
        0,
        # (TE651: the checkpoint's layouts record the first feature's samples only)
        f"{path}:5:5: TE651 [info] the layouts TensorFlow writes into checkpoints record "
        "per_sparse_core_batch_size / num_features only for table 'video' (80 / 1 feature; its "
        "features look up 84 / 2) (TensorFlow 2.21 returns from its per-feature loop after the "
        "first feature)\n"
        f'{path}:5:50: TE665 [warning] feature "watched"\'s output_shape starts with 64, 4 '
        'replicas x the 16 of feature "liked": it looks like the global batch; output_shape is '
        "per replica\n"
        "Found 1 warning, 1 info in 1 file (1 file checked).\n",
    )


def test_near_misses(tmp_path: Path) -> None:
    for shape, topology in (
        # A multiple of the replicas, but not the global batch.
        ("[512]", "{num_hosts: 2, cores_per_host: 4, per_replica_batch_size: 128}"),
        # The global batch of one replica is its per-replica batch.
        ("[16]", "{num_hosts: 1, cores_per_host: 1, per_replica_batch_size: 16}"),
        # SPMD: 8 cores, 2 replicas; 128 x 2 = 256, not 1024.
        (
            "[256]",
            "{num_hosts: 2, cores_per_host: 4, num_cores_per_replica: 4, "
            "per_replica_batch_size: 256}",
        ),
    ):
        text = replaced(
            ("output_shape: [16]}", f"output_shape: {shape}}}"), (TOPOLOGY, f"topology: {topology}")
        )
        code, stdout, _, _ = check(tmp_path, text, "--select", "TE665")
        assert (shape, code, stdout) == (shape, 0, "All checks passed (1 file checked).\n")
