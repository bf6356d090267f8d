"""torchrec-unsupported-optimizer (TE848) on TorchRec specs."""

from __future__ import annotations

from tests.torchrec_specs import findings_of

TABLE = 'tables { name: "t" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "f" }\n'


def test_an_optimizer_the_collection_has_no_update_for() -> None:
    found = findings_of(TABLE + 'collection { batch_size: 8 optimizer { type: "AdamW" } }')
    assert found == [
        (
            "TE848",
            ("collection", "optimizer", "type"),
            "optimizer 'AdamW': the fused collection updates SGD, Adagrad and Adam (torch.optim's) "
            "only, and raises ValueError (Unsupported optimizer) after building the first stack's "
            "weights; did you mean `Adam`?",
            "use 'Adam'",
        )
    ]


def test_the_three_it_updates_and_none_without_a_collection() -> None:
    for name in ("SGD", "Adagrad", "Adam"):
        # With the values torchrec-ignored-optimizer-option asks for when they are left out.
        kwargs = 'kwargs { key: "lr" value: 0.001 } kwargs { key: "eps" value: 1e-08 }'
        if name == "SGD":
            kwargs = 'kwargs { key: "lr" value: 0.001 }'
        text = TABLE + f'collection {{ batch_size: 8 optimizer {{ type: "{name}" {kwargs} }} }}'
        assert findings_of(text) == []
    assert findings_of(TABLE + "prepare { num_sc_per_device: 4 }") == []
