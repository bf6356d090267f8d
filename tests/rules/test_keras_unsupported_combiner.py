from typing import Any

from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _combined(combiner: str, placement: str, **target: Any) -> list[tuple[str, str, str]]:
    table = TableConfig("t", optimizer="sgd", placement=placement, combiner=combiner)
    layer = DistributedEmbedding({"f": FeatureConfig("f", table)})
    found = lint_keras(layer, global_device_count=4, num_sc_per_device=4, **target)
    return [(f.field, f.message, f.fix) for f in found if f.rule == "TE775"]


def test_max_on_the_sparsecores_is_right_on_no_path() -> None:
    assert _combined("max", "sparsecore") == [
        (
            "layers[0].tables[0].combiner",
            "table 't' of layer 'distributed_embedding' has combiner 'max': where the table "
            "stays in the TensorCores' memory (on CPU, or 'auto' without SparseCores) the layer "
            "refuses it with ValueError (Invalid `combiner`) when it is constructed; on the "
            "SparseCores nothing raises, but jax-tpu-embedding reduces with mean, sum or sqrtn "
            "only, and weighs this table's ids as for 'sum'",
            "use 'mean', 'sum' or 'sqrtn'",
        )
    ]
    # The verdict does not depend on the chip.
    assert _combined("max", "auto") == _combined("max", "auto", accelerator="tpu7x")


def test_on_the_default_device_the_layer_refuses_it() -> None:
    [(_, message, fix)] = _combined("summ", "default_device")
    assert message == (
        "table 't' of layer 'distributed_embedding' has combiner 'summ': the layer refuses it "
        "with ValueError (Invalid `combiner`) when it is constructed; did you mean `sum`?"
    )
    assert fix == "use 'sum'"


def test_tensorflow_refuses_it_on_the_sparsecores_too() -> None:
    [(_, message, _)] = _combined("max", "sparsecore", backend="tensorflow", accelerator="v5p")
    assert message.endswith("and on the SparseCores TensorFlow's TableConfig raises ValueError too")


def test_the_three_combiners_pass() -> None:
    assert _combined("mean", "auto") == _combined("sum", "sparsecore") == []
    assert _combined("sqrtn", "default_device") == []
