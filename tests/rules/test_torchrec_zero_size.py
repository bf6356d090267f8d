"""torchrec-zero-size (TE849) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of


def test_tables_limits_and_topologies_of_zero() -> None:
    found = findings_of(
        'tables { name: "a" kind: "bag" num_embeddings: 0 embedding_dim: 8 feature_names: "f" }\n'
        'tables { name: "b" kind: "bag" num_embeddings: 8 embedding_dim: 8 feature_names: "g" '
        "max_ids_per_partition: 0 }\n"
        "prepare { global_device_count: 0 }\n"
    )
    assert [(rule, path) for rule, path, *_ in found] == [
        ("TE849", ("tables", 0, "num_embeddings")),
        ("TE849", ("tables", 1, "max_ids_per_partition")),
        ("TE849", ("prepare", "global_device_count")),
    ]
    assert found[0][2] == (
        "table `a` has num_embeddings 0: a table needs at least one row and one column (torchrec "
        "fails on it: its EmbeddingBagConfig's weight init divides by it)"
    )
