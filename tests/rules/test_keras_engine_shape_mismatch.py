"""keras-engine-shape-mismatch (TE774): with the TensorFlow backend on v2-v4, a feature whose
declared input does not give its declared output; tests/test_tf_keras_saving_oracle.py checks it
against TPUEmbedding's own build (`make test-tf`)."""

from __future__ import annotations

from typing import Any

from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _found(
    input_shape: tuple[int, ...], output_shape: tuple[int, ...], accelerator: str = "v4"
) -> list[Any]:
    table = TableConfig("t", embedding_dim=16, optimizer="sgd")
    layer = DistributedEmbedding({"u": FeatureConfig("u", table, input_shape, output_shape)})
    found = lint_keras(layer, backend="tensorflow", global_device_count=4, accelerator=accelerator)
    return [f for f in found if f.rule == "TE774"]


def test_another_batch() -> None:
    [finding] = _found((32, 1), (64, 16))
    assert finding.field == "layers[0].features[0].output_shape"
    assert finding.message == (
        "feature 'u' of layer 'distributed_embedding' declares input_shape (32, 1), which gives "
        "outputs of shape (32,) before the embedding dimension, but output_shape (64, 16), which "
        "says (64,): TPUEmbedding's build raises ValueError (\"Inconsistent shape founded for "
        'input feature") when the layer is built on the TPU'
    )
    assert finding.fix.startswith("make output_shape (32, 16)")


def test_another_rank_and_what_passes() -> None:
    assert len(_found((32, 10, 1), (32, 16))) == 1  # (32, 10) against (32,)
    assert _found((32, 10, 1), (32, 10, 16)) == []
    assert _found((32,), (32, 16)) == []  # rank 1: the input is the output
    assert _found((32, 10), (32, 10, 16)) == []  # rank 2 under a longer one: let through
    assert _found((32, 1), (32, 16)) == []


def test_only_on_the_embedding_engine() -> None:
    assert _found((32, 1), (64, 16), "v5p") == []  # TPUEmbeddingV2 never reads input shapes
    table = TableConfig("t", embedding_dim=16, optimizer="sgd")
    layer = DistributedEmbedding({"u": FeatureConfig("u", table, (32, 1), (64, 16))})
    found = lint_keras(layer, global_device_count=4, num_sc_per_device=4, accelerator="v5p")
    assert [f for f in found if f.rule == "TE774"] == []  # the JAX backend
