"""Keras-RS objects for the plain-data layers of tests/keras_layers.py, on whichever backend
Keras runs (imports Keras and Keras-RS, not JAX or TensorFlow: the JAX oracle's probe
(tests/keras_probe.py) and the TensorFlow one (tests/test_tf_keras_oracle.py) both build with it).
"""

from __future__ import annotations

from typing import Any

import keras
import keras_rs


def _resolve(value: Any) -> Any:
    """A Keras object for ``{"class_name", "config"}`` data (optimizers, schedules)."""
    if isinstance(value, dict) and "class_name" in value:
        config = {key: _resolve(item) for key, item in value["config"].items()}
        name = value["class_name"]
        if hasattr(keras.optimizers, name):
            return getattr(keras.optimizers, name)(**config)
        return getattr(keras.optimizers.schedules, name)(**config)
    return value


def build_tables(data: dict[str, Any]) -> list[Any]:
    """The layer's `TableConfig`s."""
    tables = []
    for table in data["tables"]:
        arguments = dict(table)
        arguments["optimizer"] = _resolve(arguments["optimizer"])
        tables.append(keras_rs.layers.TableConfig(**arguments))
    return tables


def build_feature_configs(data: dict[str, Any]) -> Any:
    """The layer's features, nested as its ``structure`` says (shared tables are one object)."""
    tables = build_tables(data)
    features = [
        keras_rs.layers.FeatureConfig(
            name=f["name"],
            table=tables[f["table"]],
            input_shape=tuple(f["input_shape"]),
            output_shape=tuple(f["output_shape"]),
        )
        for f in data["features"]
    ]
    if data["structure"] == "single":
        (only,) = features
        return only
    if data["structure"] == "list":
        return features
    return {f.name: f for f in features}
