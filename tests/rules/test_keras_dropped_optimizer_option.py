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


def test_an_option_at_a_value_that_changes_nothing() -> None:
    # Keras 3.15.1: a weight decay of 0 subtracts nothing, a clipvalue that is not above 0
    # clips nothing, 0 accumulation steps accumulate nothing: dropping them changes nothing.
    assert _dropped(AdamW(weight_decay=0.0)) == []
    assert _dropped(SGD(weight_decay=0, clipvalue=0.0, gradient_accumulation_steps=0)) == []
    assert _dropped(SGD(clipvalue=-1.0)) == []
    # A negative weight decay still changes the rows.
    assert [f for f, _, _ in _dropped(SGD(weight_decay=-0.5))] == [
        "layers[0].tables[0].optimizer.config.weight_decay"
    ]


def test_values_are_shown_as_written() -> None:
    # config.json holds 1.0 and 4: the messages say (1.0) and (4), not (1) and (4.0).
    messages = [m for _, m, _ in _dropped(SGD(clipvalue=1.0, gradient_accumulation_steps=4))]
    assert [m.split(" without a word")[0].rsplit(" ", 1)[-1] for m in messages] == [
        "(1.0)",
        "(4)",
    ]
