from typing import Any

from tests.keras_objects import (
    SGD,
    Adagrad,
    AdamW,
    DistributedEmbedding,
    FeatureConfig,
    TableConfig,
)
from tpuemb_cli.keras import lint_keras


def _dropped(optimizer: Any, backend: str = "jax") -> list[tuple[str, str, str]]:
    table = TableConfig("t", optimizer=optimizer)
    layer = DistributedEmbedding({"f": FeatureConfig("f", table)})
    found = lint_keras(layer, backend=backend, global_device_count=4, num_sc_per_device=4)
    return [(f.field, f.message, f.fix) for f in found if f.rule == "TE763"]


def test_adamw_is_adam_without_decay() -> None:
    assert _dropped(AdamW(clipvalue=0.5)) == [
        (
            "layers[0].tables[0].optimizer.config.clipvalue",
            "table 't' of layer 'distributed_embedding' goes to the SparseCores, and Keras-RS's "
            "JAX conversion drops its AdamW optimizer's `clipvalue` (0.5) without a word: "
            "gradients are not clipped",
            "remove `clipvalue`: the SparseCores train the table without it",
        ),
        (
            "layers[0].tables[0].optimizer.config.weight_decay",
            "table 't' of layer 'distributed_embedding' goes to the SparseCores, and Keras-RS's "
            "JAX conversion drops its AdamW optimizer's `weight_decay` (0.004) without a word: "
            "AdamW becomes plain Adam: no weight decay is applied",
            "remove `weight_decay` and use Adam: the SparseCores train the table without it",
        ),
    ]


def test_accumulation_and_decay_of_other_classes() -> None:
    fields = [f for f, _, _ in _dropped(SGD(weight_decay=0.01, gradient_accumulation_steps=4))]
    assert fields == [
        "layers[0].tables[0].optimizer.config.gradient_accumulation_steps",
        "layers[0].tables[0].optimizer.config.weight_decay",
    ]
    assert [f for f, _, _ in _dropped("adamw")] == ["layers[0].tables[0].optimizer"]


def test_tensorflow_passes_them_on() -> None:
    assert _dropped(AdamW(clipvalue=0.5), "tensorflow") == []
    assert _dropped(Adagrad(0.1)) == []
