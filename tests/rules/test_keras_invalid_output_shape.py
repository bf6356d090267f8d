from typing import Any

from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _found(
    output_shape: tuple[Any, ...], backend: str = "tensorflow"
) -> list[tuple[str, str, str]]:
    table = TableConfig("t", embedding_dim=16, optimizer="sgd")
    # The input's batch is the declared one: another is TE761's.
    layer = DistributedEmbedding(
        {"u": FeatureConfig("u", table, (output_shape[0], 1), output_shape)}
    )
    found = lint_keras(layer, backend=backend, global_device_count=8, num_sc_per_device=4)
    # With the TensorFlow backend the table is saved nowhere (TE773, its own tests).
    found = [f for f in found if f.rule != "TE773"]
    # TPUEmbeddingV2's own view of the feature (TE661: no output_shape) gives way to this rule.
    assert all(f.rule == "TE765" for f in found), [f.rule for f in found]
    return [(f.field, f.message, f.fix) for f in found]


def test_a_batch_the_replicas_do_not_divide() -> None:
    assert _found((100, 16)) == [
        (
            "layers[0].features[0].output_shape[0]",
            "feature 'u' of layer 'distributed_embedding' has a global batch of 100, which 8 "
            "replicas do not divide: Keras-RS's TensorFlow conversion raises ValueError when "
            "the layer is built on the TPU (the first dimension is the global batch, not the "
            "per-replica one)",
            "make the global batch a multiple of 8 (e.g. 96 or 104)",
        )
    ]


def test_a_shape_without_an_embedding_dimension() -> None:
    [(field, message, _)] = _found((128,))
    assert field == "layers[0].features[0].output_shape"
    assert message.startswith("feature 'u' of layer 'distributed_embedding' has output_shape [128]")


def test_what_the_conversion_takes() -> None:
    assert _found((128, 16)) == _found((None, 16)) == []
    table = TableConfig("t", embedding_dim=16, optimizer="sgd")
    layer = DistributedEmbedding({"u": FeatureConfig("u", table, (100, 1), (100, 16))})
    found = lint_keras(layer, global_device_count=8, num_sc_per_device=4)
    assert [f.rule for f in found] == ["TE691"]  # JAX's backend: its own rule
