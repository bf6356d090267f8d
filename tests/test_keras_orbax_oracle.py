"""`tpuemb diff --against-checkpoint CKPT new.keras` against keras-rs itself (`make test-keras`;
skipped where keras-rs is not installed): for each model change, the old model is built on CPU
with keras-rs, each table filled with its own values and saved with keras-rs's
`JaxKeras3CheckpointManager.save_state` (an Orbax checkpoint of `model.get_state_tree()`); the
new model is built, saved as a `.keras` file (whose config.json diff reads) and restores the
checkpoint with `restore_state`, keras-rs's own restore. What happened -- it raised, or some
table's rows are not the ones saved for it -- is compared with diff's verdict: `restore-error`
exactly where the restore raises, `silent-reinit` exactly where it restores other rows.

On CPU keras-rs finds no SparseCore and places every table on the default device (one Keras
embedding a table, `<layer>/<table>/embeddings`); diff is told a TPU whose layout that is
(`--tpu v4-8`: the JAX layer takes no v4 chip for a SparseCore one).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
pytest.importorskip("keras_rs")

from click.testing import CliRunner

from tpuemb_cli.cli import main

# A table: (rows, dim) or (rows, dim, the TableConfig's optimizer); a feature: its table's name
# (a dict nests features as Keras-RS takes them).
Tables = dict[str, tuple[Any, ...]]
Features = dict[str, Any]
# A model: its DistributedEmbedding layers (name, tables, features), and the model's optimizer:
# a name, or a Keras optimizer class's name and its arguments (built after the session is cleared,
# so that auto-names start afresh).
Layer = tuple[str, Tables, Features]
Optimizer = str | tuple[str, dict[str, Any]]
Model = tuple[list[Layer], Optimizer]

TABLES: Tables = {"a": (100, 8), "b": (50, 8)}
FEATURES: Features = {"fa": "a", "fb": "b"}
SAME: Tables = {"a": (100, 8), "b": (100, 8)}
OLD: Model = ([("emb", TABLES, FEATURES)], "adam")


def _one(tables: Tables, features: Features, optimizer: Optimizer = "adam") -> Model:
    return [("emb", tables, features)], optimizer


# (name, old model, new model); a case tpuemb cannot tell is an xfail (strict: it fails the
# day diff tells it).
CASES: list[Any] = [
    ("unchanged", OLD, OLD),
    ("tables listed the other way", OLD, _one({"b": (50, 8), "a": (100, 8)}, FEATURES)),
    ("features listed the other way", OLD, _one(TABLES, {"fb": "b", "fa": "a"})),
    ("feature renamed past another", OLD, _one(TABLES, {"zz": "a", "fb": "b"})),
    (
        "same shapes, features trade tables",
        _one(SAME, FEATURES),
        _one(SAME, {"fa": "b", "fb": "a"}),
    ),
    ("nested feature keys", OLD, _one(TABLES, {"x": {"fa": "a"}, "fb": "b"})),
    ("vocabulary grown", OLD, _one({"a": (120, 8), "b": (50, 8)}, FEATURES)),
    ("vocabulary shrunk", OLD, _one({"a": (80, 8), "b": (50, 8)}, FEATURES)),
    ("dimension grown", OLD, _one({"a": (100, 16), "b": (50, 8)}, FEATURES)),
    ("dimension shrunk", OLD, _one({"a": (100, 4), "b": (50, 8)}, FEATURES)),
    ("table added", OLD, _one({**TABLES, "c": (10, 8)}, {**FEATURES, "fc": "c"})),
    ("table removed", OLD, _one({"a": (100, 8)}, {"fa": "a"})),
    ("table renamed", OLD, _one({"a2": (100, 8), "b": (50, 8)}, {"fa": "a2", "fb": "b"})),
    (
        "table renamed past another",
        OLD,
        _one({"a": (100, 8), "0b": (50, 8)}, {"fa": "a", "fb": "0b"}),
    ),
    ("table shared by a new feature", OLD, _one(TABLES, {**FEATURES, "fc": "a"})),
    (
        "shared table unshared",
        _one(TABLES, {**FEATURES, "fc": "a"}),
        _one({**TABLES, "c": (100, 8)}, {**FEATURES, "fc": "c"}),
    ),
    # On the default device the model's optimizer trains the tables, not the TableConfig's.
    ("table optimizer changed", OLD, _one({"a": (100, 8, "sgd"), "b": (50, 8)}, FEATURES)),
    (
        "a second layer added",
        OLD,
        ([("emb", TABLES, FEATURES), ("emb2", {"c": (10, 8)}, {"fc": "c"})], "adam"),
    ),
    (
        "two layers, unchanged",
        ([("emb", TABLES, FEATURES), ("emb2", {"c": (10, 8)}, {"fc": "c"})], "adam"),
        ([("emb", TABLES, FEATURES), ("emb2", {"c": (10, 8)}, {"fc": "c"})], "adam"),
    ),
    (
        "two layers, a table moved to the other",
        ([("emb", TABLES, FEATURES), ("emb2", {"c": (10, 8)}, {"fc": "c"})], "adam"),
        (
            [("emb", {"a": (100, 8)}, {"fa": "a"}), ("emb2", {"b": (50, 8)}, {"fb": "b"})],
            "adam",
        ),
    ),
    ("layer renamed", OLD, ([("embedding", TABLES, FEATURES)], "adam")),
    (
        "a second layer removed",
        ([("emb", TABLES, FEATURES), ("emb2", {"c": (10, 8)}, {"fc": "c"})], "adam"),
        OLD,
    ),
    # The model optimizer's variables are keyed by its name and each slot's.
    ("model optimizer changed", OLD, _one(TABLES, FEATURES, "adagrad")),
    ("model optimizer renamed", OLD, _one(TABLES, FEATURES, ("Adam", {"name": "my_adam"}))),
    (
        "another optimizer under the old name",
        OLD,
        _one(TABLES, FEATURES, ("Adagrad", {"name": "adam"})),
    ),
    ("amsgrad turned on", OLD, _one(TABLES, FEATURES, ("Adam", {"amsgrad": True}))),
    ("learning rate changed", OLD, _one(TABLES, FEATURES, ("Adam", {"learning_rate": 0.5}))),
    (
        "momentum added to SGD",
        _one(TABLES, FEATURES, "sgd"),
        _one(TABLES, FEATURES, ("SGD", {"momentum": 0.9})),
    ),
    (
        "RMSprop centered, as before",
        _one(TABLES, FEATURES, ("RMSprop", {"centered": True})),
        _one(TABLES, FEATURES, ("RMSprop", {"centered": True, "learning_rate": 0.1})),
    ),
    ("exponential moving average on", OLD, _one(TABLES, FEATURES, ("Adam", {"use_ema": True}))),
]


def _model(model: Model) -> tuple[Any, dict[str, Any]]:
    """The keras-rs model, compiled and its optimizer built (so that its slots are saved), and
    its layers by name. Names start afresh (keras auto-names optimizers `adam`, `adam_1`, ...
    per session, and the name is a key of the checkpoint)."""
    import keras
    import keras_rs

    keras.utils.clear_session()
    layers, optimizer = model
    inputs: list[Any] = []
    outputs: list[Any] = []
    built: dict[str, Any] = {}
    for layer_name, tables, features in layers:
        configs = {
            name: keras_rs.layers.TableConfig(
                name=name,
                vocabulary_size=shape[0],
                embedding_dim=shape[1],
                optimizer=shape[2] if len(shape) > 2 else "adam",
            )
            for name, shape in tables.items()
        }

        def nested(value: Features, tables: Tables = tables, configs: Any = configs) -> Any:
            return {
                key: nested(table)
                if isinstance(table, dict)
                else keras_rs.layers.FeatureConfig(
                    name=key,
                    table=configs[table],
                    input_shape=(4, 1),
                    output_shape=(4, tables[table][1]),
                )
                for key, table in value.items()
            }

        feature_configs = nested(features)
        layer_inputs = keras.tree.map_structure(
            lambda feature: keras.Input(batch_shape=(4, 1), dtype="int32", name=feature.name),
            feature_configs,
        )
        layer = keras_rs.layers.DistributedEmbedding(feature_configs, name=layer_name)
        inputs.append(layer_inputs)
        outputs.append(layer(layer_inputs))
        built[layer_name] = layer
    keras_model = keras.Model(inputs, outputs)
    if not isinstance(optimizer, str):
        kind, arguments = optimizer
        optimizer = getattr(keras.optimizers, kind)(**arguments)
    keras_model.compile(optimizer=optimizer, loss="mse")
    keras_model.optimizer.build(keras_model.trainable_variables)
    return keras_model, built


def _tables(layers: dict[str, Any]) -> dict[tuple[str, str], Any]:
    import numpy as np

    return {
        (layer_name, table): np.asarray(values)
        for layer_name, layer in layers.items()
        for table, values in layer.get_embedding_tables().items()
    }


def keras_verdict(old: Model, new: Model, folder: Path) -> tuple[set[str], str, Path, Path]:
    """What restoring the old model's checkpoint into the new model does, as diff's kinds (and
    the restore's error, if any); the checkpoint's directory and the new model's file."""
    import numpy as np
    from keras_rs.src.layers.embedding.jax.checkpoint_utils import JaxKeras3CheckpointManager

    old_model, old_layers = _model(old)
    count = 0
    for layer in old_layers.values():
        filled = {}
        for name, values in layer.get_embedding_tables().items():
            count += 1  # each table its own values: count + row / 1000 in every column
            shape = np.asarray(values).shape
            filled[name] = np.full(shape, count, "float32") + np.arange(shape[0])[:, None] / 1000
        layer.set_embedding_tables(filled)
    saved = _tables(old_layers)
    checkpoint = folder / "ckpt"
    JaxKeras3CheckpointManager(old_model, checkpoint, max_to_keep=1).save_state(1)
    new_model, new_layers = _model(new)
    new_path = folder / "new.keras"
    new_model.save(new_path)
    try:
        JaxKeras3CheckpointManager(new_model, checkpoint, max_to_keep=1).restore_state()
    except ValueError as error:
        return {"restore-error"}, str(error).splitlines()[0], checkpoint, new_path
    restored = _tables(new_layers)
    wrong = [
        key
        for key, values in restored.items()
        if key not in saved or not np.array_equal(saved[key], values)
    ]
    return ({"silent-reinit"} if wrong else set()), "", checkpoint, new_path


def diff_verdict(checkpoint: Path, new_path: Path) -> tuple[int, list[dict[str, Any]]]:
    result = CliRunner().invoke(
        main,
        [
            "diff",
            "--isolated",
            "--format",
            "json",
            "--tpu",
            "v4-8",
            "--against-checkpoint",
            str(checkpoint),
            str(new_path),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)["changes"]


@pytest.mark.parametrize(
    ("name", "old", "new"), CASES, ids=[c[0] if isinstance(c, tuple) else c.id for c in CASES]
)
def test_diff_says_what_restoring_the_checkpoint_does(
    name: str, old: Model, new: Model, tmp_path: Path
) -> None:
    kinds, error, checkpoint, new_path = keras_verdict(old, new, tmp_path)
    code, changes = diff_verdict(checkpoint, new_path)
    said = {change["kind"] for change in changes}
    print(
        f"{name}: keras-rs {sorted(kinds) or 'restores every table'} {error}; diff {sorted(said)}"
    )
    assert said == kinds
    assert code == (1 if kinds else 0)
    if "Requested shape" in error:
        # The restore's own message, in diff's.
        assert any(
            error.split(" Truncating")[0].rstrip(".") in change["message"] for change in changes
        )
