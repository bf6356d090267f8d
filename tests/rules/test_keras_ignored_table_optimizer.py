from typing import Any

from tests.keras_objects import SGD, DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _found(placement: str, optimizer: Any = None, **target: Any) -> list[tuple[str, str, str]]:
    table = TableConfig("country", optimizer=optimizer or SGD(0.5), placement=placement)
    layer = DistributedEmbedding({"c": FeatureConfig("c", table)})
    options: dict[str, Any] = {"global_device_count": 4, "num_sc_per_device": 4, **target}
    found = lint_keras(layer, **options)
    return [(f.field, f.message, f.fix) for f in found if f.rule == "TE769"]


def test_an_optimizer_on_the_default_device() -> None:
    assert _found("default_device") == [
        (
            "layers[0].tables[0].optimizer",
            "table 'country' of layer 'distributed_embedding' is placed on 'default_device': "
            "Keras-RS keeps it as an EmbedReduce layer trained by the model's optimizer "
            "(model.compile), and never uses the table's own (SGD)",
            "drop the table's optimizer and tune the model's, or place the table on the "
            "SparseCores",
        )
    ]
    assert len(_found("default_device", "sgd")) == 1


def test_auto_where_the_layer_finds_no_sparsecores() -> None:
    [(_, message, _)] = _found("auto", accelerator="tpu7x", num_sc_per_device=2)
    assert "is placed 'auto', which is the TensorCores on tpu7x:" in message
    assert _found("auto", accelerator="v5p") == []
    assert _found("auto") == []  # the chip unknown: assumed to have SparseCores


def test_the_default_optimizer_and_sparsecore_tables_pass() -> None:
    assert _found("default_device", "adam") == []
    assert _found("sparsecore") == []
