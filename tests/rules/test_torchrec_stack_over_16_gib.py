"""torchrec-stack-over-16-gib (TE859)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of

TABLE = (
    'tables { name: "u" kind: "bag" num_embeddings: 80000000 embedding_dim: 64 '
    'feature_names: "u" }\n'
)


def test_a_stack_past_16_gib_a_device() -> None:
    found = findings_of(TABLE + 'collection { batch_size: 64 optimizer { type: "SGD" } }')
    assert found == [
        (
            "TE859",
            ("collection", "global_device_count"),
            "stack `u` takes 19.1 GiB a device (80,000,000 rows x 64): past the 16 GiB a tensor "
            "that torchrec's notes say XLA's SparseCore compiler supports",
            "run on 2 devices or more, or split the stack's tables",
        )
    ]
    two = TABLE + 'collection { batch_size: 64 global_device_count: 2 optimizer { type: "SGD" } }'
    assert findings_of(two) == []
