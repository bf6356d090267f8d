"""torchrec-pooling-none-averaged (TE860)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of


def table(pooling: str) -> str:
    return (
        f'tables {{ name: "t" kind: "bag" pooling: "{pooling}" num_embeddings: 64 '
        'embedding_dim: 8 feature_names: "f" }\nprepare {}'
    )


def test_a_bag_table_of_pooling_none() -> None:
    assert findings_of(table("NONE")) == [
        (
            "TE860",
            ("tables", 0, "pooling"),
            "table `t` is pooled by NONE: torchrec's SparseCore preprocessing combines every bag "
            "table but SUM by the mean, so its lookups come back averaged",
            "use pooling 'MEAN' to say what it does, or a sequence table for no pooling",
        )
    ]
    assert findings_of(table("SUM")) == findings_of(table("MEAN")) == []
