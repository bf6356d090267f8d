"""Keras-RS's TensorFlow backend against tpuemb's `--keras-backend tensorflow` (run by `make
test-tf`, whose environment has TensorFlow 2.21 and keras-rs; skipped elsewhere).

For every layer of tests/keras_layers.py, on a v5p slice of DEVICES chips of SPARSECORES
SparseCores: Keras-RS's own conversion for TPUEmbeddingV2 (`keras_to_tf_tpu_configuration`,
called as `DistributedEmbedding` calls it on a TPU: on the features a SparseCore holds, keyed by
their path, with the layer's `table_stacking` and the replicas) either raises -- and tpuemb then
reports an error for the layer, at the table whose optimizer option it names -- or returns the
TensorFlow configs, and tpuemb's spec of the layer is exactly `spec_from_tf` of them, with no
Keras rule's error. On a v4 slice (embedding feature V1) the layer builds `TPUEmbedding` (v1)
from the same FeatureConfigs, without the SparseCoreEmbeddingConfig: tpuemb's spec is
`spec_from_tf` of them with no `sparse_core` section.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

os.environ["KERAS_BACKEND"] = "tensorflow"
pytest.importorskip("tensorflow")
pytest.importorskip("keras_rs")

import keras
import keras_rs
import tensorflow as tf
from keras_rs.src.layers.embedding.tensorflow import config_conversion

from tests.keras_build import build_feature_configs
from tests.keras_layers import DEVICES, SPARSECORES, all_cases
from tpuemb_cli.keras import lint_keras, spec_from_keras
from tpuemb_cli.tf import spec_from_tf

# The Keras rules whose errors mean "Keras-RS's TensorFlow conversion refuses this layer".
REFUSING = {"TE762", "TE764", "TE765", "TE766"}
DATA = [(f"{case['name']}/{data['name']}", data) for case in all_cases() for data in case["layers"]]
LAYERS = [pytest.param(data, id=name) for name, data in DATA]


def _on_sparsecore(feature_configs: Any) -> dict[str, Any]:
    """The features a SparseCore holds, by path, as DistributedEmbedding keys them ("auto" is
    SparseCore on a v5p)."""
    return {
        ".".join(str(part) for part in path): feature
        for path, feature in keras.tree.flatten_with_path(feature_configs)
        if feature.table.placement != "default_device"
    }


def _stacking(data: dict[str, Any], read: Any) -> Any:
    """The ``table_stacking`` the conversion gets for what tpuemb reads. A layer built on CPU
    with no table on the SparseCores keeps none (Keras-RS stores it in ``_sparsecore_init``
    only, and ``get_config`` then leaves it out, so that the saved model reloads as "auto"): what
    tpuemb reads of such a layer is "auto", as the reloaded model is."""
    if read is None or read is _feature_configs_of(read):
        return data["table_stacking"]
    return getattr(read, "_table_stacking", "auto")


def _feature_configs_of(read: Any) -> Any:
    return getattr(read, "_feature_configs", read)


def _conversion(data: dict[str, Any]) -> tuple[Any, Any, str | None]:
    """(feature configs, what tpuemb reads, None) or (..., Keras-RS's error) for the layer
    ``data``. tpuemb reads the DistributedEmbedding itself (its ``table_stacking`` is the
    layer's); a layer whose tables ask for placement "sparsecore" cannot be built off a TPU with
    this backend ("not running under a TPU strategy"), and is read by its feature configs."""
    try:
        feature_configs = build_feature_configs(data)
    except (ValueError, TypeError, KeyError) as error:  # refused by TableConfig itself
        return None, None, f"{type(error).__name__}: {error}"
    try:
        read: Any = keras_rs.layers.DistributedEmbedding(
            feature_configs, table_stacking=data["table_stacking"], name=data["name"]
        )
    except ValueError as error:
        if "not running under a TPU strategy" not in str(error):
            raise
        read = feature_configs
    flat = _on_sparsecore(feature_configs)
    if not flat:
        return feature_configs, read, None
    try:
        config_conversion.keras_to_tf_tpu_configuration(flat, _stacking(data, read), DEVICES)
    except (ValueError, TypeError, KeyError) as error:
        return feature_configs, read, f"{type(error).__name__}: {error}"
    return feature_configs, read, None


def _comparable(data: dict[str, Any], read: Any, feature_configs: Any) -> None:
    if read is feature_configs and data["table_stacking"] != "auto":
        pytest.skip("the layer cannot be built on CPU, and its table_stacking is the layer's")


@pytest.mark.parametrize("data", LAYERS)
def test_tpuembs_verdict_is_keras_rs_conversions(data: dict[str, Any]) -> None:
    feature_configs, read, refused = _conversion(data)
    if feature_configs is None:
        pytest.skip(f"Keras-RS refuses the configs themselves: {refused}")
    _comparable(data, read, feature_configs)
    findings = lint_keras(
        read,
        backend="tensorflow",
        global_device_count=DEVICES,
        num_sc_per_device=SPARSECORES,
        accelerator="v5p",
    )
    errors = [f for f in findings if f.rule in REFUSING and str(f.severity) == "error"]
    if refused is None:
        assert errors == [], [(f.rule, f.message) for f in errors]
        return
    assert errors, f"Keras-RS raised {refused}; tpuemb reported {[f.rule for f in findings]}"
    option = re.search(r"Unsupported optimizer option `?(?:Optimizer\.)?(\w+)", refused)
    if option is not None:
        assert any(option.group(1) in f.message for f in errors), (refused, errors)


@pytest.mark.parametrize("data", LAYERS)
def test_the_spec_is_spec_from_tf_of_keras_rs_conversion(data: dict[str, Any]) -> None:
    feature_configs, read, refused = _conversion(data)
    if feature_configs is None or refused is not None:
        pytest.skip(f"Keras-RS refuses it: {refused}")
    _comparable(data, read, feature_configs)
    flat = _on_sparsecore(feature_configs)
    if not flat:
        pytest.skip("no table on the SparseCores")
    converted, sparse_core = config_conversion.keras_to_tf_tpu_configuration(
        flat, _stacking(data, read), DEVICES
    )
    theirs = spec_from_tf(
        converted,
        num_hosts=1,
        cores_per_host=DEVICES,
        sparse_core_config=sparse_core,
        accelerator="v5p",  # SPARSECORES a chip, from tpuemb's chip table
    )
    ours = spec_from_keras(
        read,
        backend="tensorflow",
        global_device_count=DEVICES,
        num_sc_per_device=SPARSECORES,
        accelerator="v5p",
    )
    # A schedule's description is free text for people: Keras-RS hands TensorFlow a lambda
    # (its repr names an address), tpuemb says which Keras schedule it wraps.
    for spec in (ours, theirs):
        for schedule in spec.schedules:
            schedule.description = ""
    assert ours == theirs


@pytest.mark.parametrize("data", LAYERS)
def test_on_v4_the_spec_is_spec_from_tf_of_what_tpuembedding_gets(data: dict[str, Any]) -> None:
    """On a chip of embedding feature V1 (v4), `_sparsecore_init` builds `TPUEmbedding` (v1)
    from the same FeatureConfigs and drops the SparseCoreEmbeddingConfig: tpuemb's spec is
    `spec_from_tf` of those FeatureConfigs with no `sparse_core_config` ("auto" goes to the
    embedding engine as to the SparseCores, so the same features convert)."""
    feature_configs, read, refused = _conversion(data)
    if feature_configs is None or refused is not None:
        pytest.skip(f"Keras-RS refuses it: {refused}")
    _comparable(data, read, feature_configs)
    flat = _on_sparsecore(feature_configs)
    if not flat:
        pytest.skip("no table on the TPU embedding")
    converted, _ = config_conversion.keras_to_tf_tpu_configuration(
        flat, _stacking(data, read), DEVICES
    )
    theirs = spec_from_tf(converted, num_hosts=1, cores_per_host=DEVICES, accelerator="v4")
    ours = spec_from_keras(
        read, backend="tensorflow", global_device_count=DEVICES, accelerator="v4"
    )
    for spec in (ours, theirs):
        for schedule in spec.schedules:
            schedule.description = ""
    assert not ours.HasField("sparse_core")
    assert ours == theirs


def test_enough_layers_convert_and_enough_are_refused() -> None:
    verdicts = [_conversion(data) for _, data in DATA]
    converted = sum(1 for configs, _, refused in verdicts if configs is not None and not refused)
    refused = sum(1 for _, _, refused in verdicts if refused)
    assert len(LAYERS) >= 30 and converted >= 20 and refused >= 5, (converted, refused)
    assert tf.__version__.startswith("2.21"), tf.__version__


# `tpuemb diff --keras-backend tensorflow` against the TensorFlow backend's own load_weights, on
# CPU: the default-device tables (the cases of tests/test_keras_diff_oracle.py, with
# placement="default_device", which is where "auto" puts them on a CPU and where diff places
# them on any TPU). Its SparseCore tables live in a TPUEmbeddingV2, which no CPU builds: diff
# does not compare them, and says so with exit 2 (tests/test_keras_diff.py).
def _diff_cases() -> list[Any]:
    from tests.test_keras_diff_oracle import CASES, PLACED_CASES

    return [pytest.param("features", case[1:], id=case[0]) for case in CASES] + [
        pytest.param("placed", case[1:], id=case[0]) for case in PLACED_CASES
    ]


@pytest.mark.parametrize(("kind", "case"), _diff_cases())
def test_diff_says_what_the_tensorflow_backends_load_weights_does(
    kind: str, case: tuple[Any, ...], tmp_path: Any
) -> None:
    from tests.test_keras_diff_oracle import diff_verdict, keras_verdict, placed_verdict

    assert keras.backend.backend() == "tensorflow"
    if kind == "features":
        old_tables, old_features, new_tables, new_features = case
        kinds, old_path, new_path = keras_verdict(
            old_tables, old_features, new_tables, new_features, tmp_path, "default_device"
        )
    else:
        old_layers, new_layers = case
        kinds, old_path, new_path = placed_verdict(
            old_layers, new_layers, tmp_path, "default_device"
        )
    said = diff_verdict(old_path, new_path, "tensorflow")
    if "restore-error" in kinds:
        assert "restore-error" in said
    else:
        assert said == kinds
