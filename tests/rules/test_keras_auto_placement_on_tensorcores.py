from typing import Any

from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _found(placement: str = "auto", **target: Any) -> list[tuple[str, str, str]]:
    table = TableConfig("users", optimizer="sgd", placement=placement)
    layer = DistributedEmbedding({"u": FeatureConfig("u", table)})
    options: dict[str, Any] = {"global_device_count": 4, "num_sc_per_device": 2, **target}
    found = lint_keras(layer, **options)
    return [(f.field, f.message, f.fix) for f in found if f.rule == "TE768"]


def test_auto_on_a_chip_with_sparsecores_the_layer_does_not_know() -> None:
    assert _found(accelerator="tpu7x") == [
        (
            "layers[0].tables[0].placement",
            "table 'users' of layer 'distributed_embedding' is placed 'auto', and tpu7x has 2 "
            "SparseCores per device, but keras-rs 0.4.0's JAX layer takes only v5p and v6e "
            "devices for SparseCore ones: the table stays in the TensorCores' memory (not "
            "sharded over SparseCores, not stacked, trained by the model's optimizer)",
            "say placement='default_device' if the TensorCores are meant; for the SparseCores, "
            "run on v5p or v6e",
        )
    ]


def test_not_where_auto_finds_sparsecores_or_there_are_none() -> None:
    assert _found(accelerator="v6e") == []
    assert _found(accelerator="v5e", num_sc_per_device=0) == []
    assert _found() == []  # the chip unknown: assumed to have them
    assert _found(accelerator="tpu7x", backend="tensorflow") == []
    assert _found("default_device", accelerator="tpu7x") == []
