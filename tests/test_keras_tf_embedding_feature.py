"""The TensorFlow backend builds what the chip's TPU embedding feature asks for (keras-rs 0.4.0's
``_sparsecore_init``): ``TPUEmbedding`` (v1) on v2, v3 and v4, ``TPUEmbeddingV2`` on v5p and v6e,
and on v5e and TPU7x, whose feature no source gives, no verdict that depends on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tpuemb_cli.frontends.keras.spec.conversion import Topology
from tpuemb_cli.keras import specs_from_file

from .keras_config_text import invoke, model_text, optimizer, table, write

# AdamW with weight decay and clipvalue: TPUEmbeddingV2 refuses the one (TE663) and drops the
# other (TE662); TPUEmbedding (v1) trains with both.
ADAMW = optimizer("AdamW", learning_rate=0.001, weight_decay=0.004, clipvalue=0.5)


def _model(tmp_path: Path) -> Path:
    tables = [table("users", optimizer=ADAMW), table("items", dim=4)]
    return write(tmp_path, model_text(tables, {"user": 0, "item": 1}))


def _codes(path: Path, tpu: str, *options: str) -> list[str]:
    args = ["check", "--format", "json", "--keras-backend", "tensorflow", *options]
    result = invoke(*args, *(["--tpu", tpu] if tpu else []), str(path))
    assert result.exit_code in (0, 1), result.output
    return [finding["rule"] for finding in json.loads(result.stdout)["findings"]]


@pytest.mark.parametrize(
    ("chip", "feature"),
    [("v2", "V1"), ("v3", "V1"), ("v4", "V1"), ("v5p", "V2"), ("v6e", "V2"), ("", "V2")],
)
def test_each_chip_s_embedding_feature(chip: str, feature: str) -> None:
    topology = Topology("tensorflow", 4, 0, chip)
    assert topology.embedding_feature() == feature
    assert topology.library() == {"V1": "TPUEmbedding", "V2": "TPUEmbeddingV2"}[feature]


@pytest.mark.parametrize("chip", ["v5e", "tpu7x"])
def test_the_feature_of_v5e_and_tpu7x_is_not_known(chip: str) -> None:
    assert Topology("tensorflow", 4, 0, chip).embedding_feature() == ""


@pytest.mark.parametrize("tpu", ["v4-8", "v3-8", "v2"])
def test_v1_chips_judge_the_tables_as_tpuembedding_does(tmp_path: Path, tpu: str) -> None:
    path = _model(tmp_path)
    codes = _codes(path, tpu)
    assert "TE663" not in codes and "TE662" not in codes
    # The same model on v5p: TPUEmbeddingV2's verdicts.
    assert {"TE663", "TE662"} <= set(_codes(path, "v5p-8"))


def test_a_v1_spec_has_no_sparse_core_section(tmp_path: Path) -> None:
    path = _model(tmp_path)
    v4 = {"global_device_count": 4, "num_sc_per_device": 0, "accelerator": "v4"}
    [(_, spec)] = specs_from_file(path, backend="tensorflow", **v4)  # type: ignore[arg-type]
    assert not spec.HasField("sparse_core")
    assert spec.topology.accelerator == "v4"
    assert [t.name for t in spec.tables] == ["items", "users"]
    assert spec.tables[1].optimizer.weight_decay_factor == pytest.approx(0.004)
    v5p = {"global_device_count": 4, "num_sc_per_device": 4, "accelerator": "v5p"}
    [(_, spec)] = specs_from_file(path, backend="tensorflow", **v5p)  # type: ignore[arg-type]
    assert spec.HasField("sparse_core")


def test_a_refused_optimizer_is_one_finding_on_v1(tmp_path: Path) -> None:
    """RMSprop, which the conversion refuses (TE762), reaches the spec as a custom optimizer:
    TPUEmbedding's compiled config then has no algorithm (TE201), the same mistake."""
    tables = [table("users", optimizer=optimizer("RMSprop", learning_rate=0.01))]
    path = write(tmp_path, model_text(tables, {"user": 0}))
    assert _codes(path, "v4-8") == ["TE762", "TE773"]  # and TPUEmbedding's table is not saved
    args = ("check", "--format", "concise", "--keras-backend", "tensorflow", "--tpu", "v4-8")
    assert "goes to the TPU embedding engine, and Keras-RS's" in invoke(*args, str(path)).stdout


@pytest.mark.parametrize("tpu", ["v5litepod-8", "tpu7x"])
def test_no_verdict_depends_on_a_feature_not_known(tmp_path: Path, tpu: str) -> None:
    path = _model(tmp_path)
    codes = _codes(path, tpu)
    assert "TE663" not in codes and "TE662" not in codes
    result = invoke("explain", "--tpu", tpu, "--keras-backend", "tensorflow", str(path))
    assert (result.exit_code, result.stderr) == (0, "")
    assert "(TPUEmbedding or TPUEmbeddingV2)" in result.stdout
    assert "TPU embedding feature not known" in result.stdout.splitlines()[0]
    if tpu == "tpu7x":  # and TensorFlow does not run there at all: the layer cannot either
        assert "TensorFlow does not run on TPU7x" in result.stdout
    else:
        assert "which TPU embedding feature v5e reports is not known" in result.stdout
    assert "SparseCores" not in result.stdout


def _explained(path: Path, tpu: str, *options: str) -> str:
    args = ("explain", "--tpu", tpu, "--keras-backend", "tensorflow", *options, str(path))
    result = invoke(*args)
    assert (result.exit_code, result.stderr) == (0, "")
    return result.stdout


def test_explain_on_v4_names_tpuembedding_and_the_embedding_engine(tmp_path: Path) -> None:
    text = _explained(_model(tmp_path), "v4-8")
    assert text.splitlines()[0].endswith(
        "(Keras-RS model: 1 DistributedEmbedding layer; backend tensorflow (TPUEmbedding), "
        "4 devices of v4, TPU embedding feature V1)"
    )
    assert "SparseCore" not in text
    assert "auto on v4: embedding feature V1, the TPU embedding engine (TPUEmbedding)" in text
    assert "  what TPUEmbedding builds:" in text
    rows = [line.split() for line in text.splitlines()]
    assert ["users", "64", "x", "8", "the", "TPU", "embedding", "engine"] in [r[:8] for r in rows]
    # The compiled config's table: Adam with the weight decay TPUEmbedding keeps.
    assert any(row[:5] == ["users", "64", "x", "8", "adam"] and "0.004" in row for row in rows)


def test_explain_memory_on_v4_is_the_tensorcore_model(tmp_path: Path) -> None:
    path = _model(tmp_path)
    text = _explained(path, "v4-8", "--memory")
    assert "(TPUEmbedding, compiled as TensorFlow would)" in text
    # The TensorCore model's own line names what it does not cover.
    assert "SparseCore" not in text.replace("reported for SparseCores instead", "")
    document: dict[str, Any] = json.loads(_explained(path, "v4-8", "--memory", "--format", "json"))
    assert document["library"] == "TPUEmbedding"
    [layer] = document["layers"]
    assert layer["memory"]["engine"] == "tensorcore"
    assert layer["memory"]["cores"] == 4


def test_a_sweep_of_v3_and_v4_has_no_error_of_the_chip_assumed_without_one(tmp_path: Path) -> None:
    # Without a chip, TPUEmbeddingV2 is assumed and its refusal of weight decay (TE663) is an
    # error; neither v3 nor v4 builds TPUEmbeddingV2, and the sweep of them said TE663 (exit 1)
    # though each of its slices alone is clean.
    text = _explained(_model(tmp_path), "v3-8,v4-8", "--memory")
    assert "TPU v3: the smallest slice that fits: v3-8" in text


def test_tensorflow_on_tpu7x_cannot_run_the_model(tmp_path: Path) -> None:
    text = _explained(_model(tmp_path), "v4-8,tpu7x", "--memory")
    assert (
        "TPU tpu7x: cannot run it: layer m/embedding: TensorFlow does not run on TPU7x (its "
        'Cloud TPU page: "TensorFlow is not supported"; JAX is)'
    ) in text.splitlines()


def test_without_a_tpu_v2_is_assumed_and_said(tmp_path: Path) -> None:
    path = _model(tmp_path)
    assert {"TE663", "TE662"} <= set(_codes(path, ""))
    result = invoke("explain", "--keras-backend", "tensorflow", str(path))
    assert "backend tensorflow (TPUEmbeddingV2, assumed: no chip named)" in result.stdout


def test_a_chip_named_alone_is_one_replica_not_an_unknowable_shape(tmp_path: Path) -> None:
    # `--tpu v4` (no device count) left every feature's output shape out of the spec, and
    # TPUEmbedding's rules called each one unknowable (TE723, an error per feature).
    path = write(tmp_path, model_text([table("users")], {"user": 0, "friend": 0}))
    for chip in ("v2", "v3", "v4", "v5p"):
        assert "TE723" not in _codes(path, chip), chip
