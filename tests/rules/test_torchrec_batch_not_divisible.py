"""torchrec-batch-not-divisible (TE847) on TorchRec specs (tests/test_torchrec_oracle.py has the
library's own verdicts)."""

from __future__ import annotations

from tests.torchrec_specs import findings_of


def test_a_batch_the_sparsecores_do_not_divide() -> None:
    found = findings_of(
        'tables { name: "t" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "f" }\n'
        'collection { batch_size: 30 num_sc_per_device: 4 optimizer { type: "SGD" '
        'kwargs { key: "lr" value: 0.01 } } }\n'
    )
    assert found == [
        (
            "TE847",
            ("collection", "batch_size"),
            "batch_size 30 is not a multiple of num_sc_per_device 4: the collection raises "
            "ValueError when it is constructed",
            "use a batch of 32 or 28",
        )
    ]


def test_a_batch_they_divide_and_the_defaults() -> None:
    base = 'tables { name: "t" kind: "bag" num_embeddings: 64 embedding_dim: 8 }\n'
    sgd = 'optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } }'
    assert findings_of(base + f"collection {{ batch_size: 32 num_sc_per_device: 4 {sgd} }}") == []
    # The library's defaults: a batch of 1 over 2 SparseCores, which it refuses.
    assert [f[0] for f in findings_of(base + f"collection {{ {sgd} }}")] == ["TE847"]
