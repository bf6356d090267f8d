from typing import Any

from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _placed(placement: str, **target: Any) -> list[tuple[str, str, str]]:
    table = TableConfig("t", optimizer="sgd", placement=placement)
    layer = DistributedEmbedding({"f": FeatureConfig("f", table)})
    found = lint_keras(layer, global_device_count=4, num_sc_per_device=4, **target)
    return [(f.field, f.message, f.fix) for f in found if f.rule == "TE764"]


def test_an_unknown_placement() -> None:
    assert _placed("sparse_core") == [
        (
            "layers[0].tables[0].placement",
            "table 't' of layer 'distributed_embedding' has placement 'sparse_core', which the "
            "layer refuses with ValueError (unsupported placement) when it is constructed; did "
            "you mean `sparsecore`?",
            "use 'sparsecore'",
        )
    ]
    assert _placed("gpu")[0][2] == "use 'auto', 'sparsecore' or 'default_device'"


def test_sparsecore_where_the_jax_layer_finds_none() -> None:
    [(field, message, _)] = _placed("sparsecore", accelerator="tpu7x")
    assert field == "layers[0].tables[0].placement"
    assert message == (
        "table 't' of layer 'distributed_embedding' is placed on 'sparsecore', but keras-rs "
        "0.4.0's JAX layer finds no SparseCores on tpu7x (it knows v5p and v6e devices only): "
        "it raises ValueError when it is constructed"
    )
    assert _placed("sparsecore", accelerator="v6e") == []
    assert _placed("sparsecore", accelerator="tpu7x", backend="tensorflow") == []


def test_the_three_placements_pass() -> None:
    assert _placed("auto") == _placed("sparsecore") == _placed("default_device") == []
