"""torchrec-missing-max-seq-len (TE845)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of


def test_a_sequence_table_without_max_seq_len() -> None:
    found = findings_of(
        'tables { name: "h" kind: "sequence" num_embeddings: 64 embedding_dim: 8 '
        'feature_names: "h" }\nprepare {}'
    )
    assert found == [
        (
            "TE845",
            ("tables", 0),
            "table `h` is a sequence table (EmbeddingConfig) without max_seq_len: torchrec raises "
            "ValueError when it stacks it",
            "set max_seq_len to the most ids a sample of its features holds",
        )
    ]
    assert (
        findings_of(
            'tables { name: "h" kind: "sequence" max_seq_len: 5 num_embeddings: 64 '
            'embedding_dim: 8 feature_names: "h" }\nprepare {}'
        )
        == []
    )
