from typing import Any

from tests.keras_objects import (
    SGD,
    Adagrad,
    Adam,
    AdamW,
    DistributedEmbedding,
    FeatureConfig,
    Ftrl,
    RMSprop,
    TableConfig,
)
from tpuemb_cli.keras import lint_keras


def _refused(
    optimizer: Any, backend: str = "jax", placement: str = "auto", **target: Any
) -> list[tuple[str, str]]:
    table = TableConfig("t", optimizer=optimizer, placement=placement)
    layer = DistributedEmbedding({"f": FeatureConfig("f", table)})
    options = {"global_device_count": 4, "num_sc_per_device": 4, **target}
    found = lint_keras(layer, backend=backend, **options)
    return [(f.field, f.message.split("ValueError(")[1]) for f in found if f.rule == "TE762"]


def test_each_refused_option() -> None:
    at = "layers[0].tables[0].optimizer"
    assert _refused(Adagrad(0.1, clipnorm=1.0, use_ema=True, epsilon=1e-5)) == [
        (
            f"{at}.config.clipnorm",
            '"Unsupported optimizer option `clipnorm`.") when the layer '
            "is built on the TPU (on CPU the conversion never runs)",
        ),
        (
            f"{at}.config.epsilon",
            '"Unsupported optimizer option `epsilon`.") when the layer is '
            "built on the TPU (on CPU the conversion never runs)",
        ),
        (
            f"{at}.config.use_ema",
            '"Unsupported optimizer option `use_ema`.") when the layer is '
            "built on the TPU (on CPU the conversion never runs)",
        ),
    ]


def test_class_options_and_classes() -> None:
    assert [field for field, _ in _refused(SGD(momentum=0.9, nesterov=True))] == [
        "layers[0].tables[0].optimizer.config.momentum",
        "layers[0].tables[0].optimizer.config.nesterov",
    ]
    assert len(_refused(Adam(amsgrad=True))) == len(_refused(AdamW(amsgrad=True))) == 1
    assert len(_refused(Ftrl(l2_shrinkage_regularization_strength=0.1))) == 1
    [(field, message)] = _refused(RMSprop())
    assert field == "layers[0].tables[0].optimizer"
    assert message.startswith('"Unsupported optimizer type RMSprop. Optimizer must be one of')
    assert _refused("rmsprop")[0][1].startswith('"Unsupported optimizer type RMSprop.')


def test_tensorflow_words_and_names() -> None:
    [(_, message)] = _refused(Adagrad(clipnorm=1.0), "tensorflow")
    assert message.startswith('"Unsupported optimizer option `Optimizer.clipnorm`.")')
    [(field, message)] = _refused("adamw", "tensorflow")
    assert field == "layers[0].tables[0].optimizer"
    assert message.startswith("\"Unknown optimizer name 'adamw'. Please use one of 'sgd'")
    assert _refused("adamw") == []  # JAX takes any Keras name: AdamW is an Adam (TE763)


def test_what_is_not_converted_is_not_judged() -> None:
    assert _refused(RMSprop(), placement="default_device") == []
    # keras-rs 0.4.0's JAX layer finds no SparseCores on TPU7x: "auto" is the TensorCores.
    assert _refused(RMSprop(), accelerator="tpu7x") == []
    assert len(_refused(RMSprop(), accelerator="v5p")) == 1
    assert _refused(Adagrad(0.1)) == _refused(Ftrl()) == _refused("sgd") == []
