"""keras-tables-not-saved (TE773): with the TensorFlow backend, a Keras-RS layer's tables on the
TPU's embedding hardware are saved nowhere. tests/test_tf_keras_saving_oracle.py checks it
against keras-rs and TensorFlow saving and loading the real layer (`make test-tf`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.keras_config_text import findings, model_text, table, write
from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _mixed() -> str:
    tables = [
        table("users", 1000, 16),
        table("items", 500, 8, placement="sparsecore"),
        table("tags", 64, 4, placement="default_device"),
    ]
    return model_text(tables, {"user": 0, "item": 1, "tag": 2})


def _te773(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in found if f["rule"] == "TE773"]


def test_one_finding_a_layer_naming_its_tables_on_the_embedding_hardware(tmp_path: Path) -> None:
    path = write(tmp_path, _mixed())
    [finding] = _te773(findings(path, "--keras-backend", "tensorflow"))
    assert (finding["severity"], finding["field"]) == ("warning", "layers[0].tables[0].placement")
    assert finding["message"] == (
        "layer 'm/embedding' keeps tables 'users', 'items' in TPUEmbeddingV2 (the SparseCores), "
        "which keras-rs 0.4.0's TensorFlow layer sets up outside Keras's tracking: model.save() "
        "and save_weights() write none of their values (only a (1,) gradient-trap variable), "
        "tf.train.Checkpoint(model) holds nothing of the layer, and a model loaded from the file "
        "starts them from their initializers"
    )
    assert "tf.train.Checkpoint(embedding=layer._tpu_embedding)" in finding["help"]
    # v4: the TPU embedding engine, TPUEmbedding (v1), kept alike.
    [finding] = _te773(findings(path, "--keras-backend", "tensorflow", "--tpu", "v4-8"))
    assert "in TPUEmbedding (the TPU embedding engine)" in finding["message"]


def test_not_with_the_jax_backend_nor_an_unknown_chip_nor_the_default_device(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, _mixed())
    assert _te773(findings(path)) == []  # JAX: the layer saves its stacks
    # v5e: which embedding the TensorFlow layer finds there is not known.
    assert _te773(findings(path, "--keras-backend", "tensorflow", "--tpu", "v5litepod-8")) == []
    tables = [table("tags", 64, 4, placement="default_device")]
    path = write(tmp_path, model_text(tables, {"tag": 0}))
    assert _te773(findings(path, "--keras-backend", "tensorflow")) == []


def test_a_table_only_one_feature_uses_and_the_singular(tmp_path: Path) -> None:
    tables = [table("users", 1000, 16), table("spare", 10, 4)]
    path = write(tmp_path, model_text(tables, {"user": 0}))
    [finding] = _te773(findings(path, "--keras-backend", "tensorflow"))
    assert finding["message"].startswith(
        "layer 'm/embedding' keeps table 'users' in TPUEmbeddingV2"
    )
    assert finding["message"].endswith("starts it from its initializer")
    assert "write none of its values" in finding["message"]


def test_a_live_layer_and_many_tables() -> None:
    tables = [TableConfig(f"t{i}", embedding_dim=8, optimizer="sgd") for i in range(12)]
    layer = DistributedEmbedding(
        {f"f{i}": FeatureConfig(f"f{i}", t, (32, 1), (32, 8)) for i, t in enumerate(tables)}
    )
    found = lint_keras(layer, backend="tensorflow", global_device_count=8, num_sc_per_device=4)
    [finding] = [f for f in found if f.rule == "TE773"]
    # Tables in the order the conversion reads their features: by path, sorted as text.
    assert "'t0', 't1', 't10', 't11', 't2', 't3', 't4', 't5' and 4 more" in finding.message
