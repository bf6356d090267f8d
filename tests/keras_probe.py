"""Keras-RS's own verdicts on the cases of tests/keras_layers.py, computed in-process inside the
Keras oracle's environment (`make test-keras`: keras-rs, keras, jax, jax-tpu-embedding on CPU,
KERAS_BACKEND=jax). Imports Keras: only tests/test_keras_oracle.py (after its importorskip) and
tests/data/keras/make_fixtures.py import this module.

For each layer it records what the library does, never what we think it should do:

- ``conversion``: Keras-RS's JAX `config_conversion.keras_to_jte_feature_configs` called on the
  layer's feature configs that a SparseCore would hold (placement "auto" or "sparsecore"; a
  "default_device" table is never converted): the error's message, or None; and per table,
  `keras_to_jte_optimizer`'s message for its optimizer, or None;
- ``stacks``: after a successful conversion, what jax-tpu-embedding stacks on DEVICES x SPARSECORES
  for the ``table_stacking`` the saved layer reloads with (its `get_config`, "auto" where absent)
  -- the same calls as Keras-RS's `sparsecore_build` -- as {stack name: [table names]}; or
  ``stacking_error``;
- ``proto``: `create_proto_from_feature_specs` of the stacked features (an EmbeddingSpecProto);
- ``output_shapes``: the layer's outputs on CPU, called eagerly on ids of each feature's input
  shape (None for a layer built on the simulated SparseCore, which cannot run), and
  ``declared_output_shapes``: what `compute_output_shape` says.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax
import keras
import keras_rs
from jax_tpu_embedding.sparsecore.lib.nn import embedding, table_stacking
from keras_rs.src.layers.embedding import base_distributed_embedding
from keras_rs.src.layers.embedding.jax import config_conversion
from keras_rs.src.layers.embedding.jax import distributed_embedding as jax_layer

from tests.keras_build import build_feature_configs
from tests.keras_layers import DEVICES, SPARSECORES, Case


@contextlib.contextmanager
def simulated_sparsecore() -> Iterator[None]:
    """Keras-RS's SparseCore path on a CPU: `_has_sparsecore` says yes and each device has
    SPARSECORES SparseCores, so the layer converts, stacks and creates its stacked variables
    (one CPU device) as on a TPU -- enough to build it on symbolic inputs and save it, not to run
    it."""
    utils = jax_layer.jte_utils
    saved = (
        base_distributed_embedding.DistributedEmbedding._has_sparsecore,
        utils.num_sparsecores_per_device,
    )
    base_distributed_embedding.DistributedEmbedding._has_sparsecore = lambda self: True
    utils.num_sparsecores_per_device = lambda device=None: SPARSECORES
    try:
        yield
    finally:
        base_distributed_embedding.DistributedEmbedding._has_sparsecore = saved[0]
        utils.num_sparsecores_per_device = saved[1]


def _inputs(data: dict[str, Any], prefix: str) -> Any:
    """Symbolic inputs shaped as the layer's features, nested as they are."""
    made = {
        f["name"]: keras.Input(
            batch_shape=tuple(f["input_shape"]), dtype="int32", name=f"{prefix}{f['name']}"
        )
        for f in data["features"]
    }
    if data["structure"] == "single":
        return next(iter(made.values()))
    if data["structure"] == "list":
        return list(made.values())
    return made


def build_layer(data: dict[str, Any], sparsecore: bool = False) -> Any:
    """The `DistributedEmbedding` of ``data`` (not built)."""
    with simulated_sparsecore() if sparsecore else contextlib.nullcontext():
        return keras_rs.layers.DistributedEmbedding(
            build_feature_configs(data), table_stacking=data["table_stacking"], name=data["name"]
        )


def _flat_outputs(outputs: Any) -> list[Any]:
    return list(keras.tree.flatten(outputs))


def build_model(case: Case) -> tuple[Any, list[Any]]:
    """The model of ``case`` (built on symbolic inputs) and its `DistributedEmbedding` layers."""
    layers = []
    all_inputs: list[Any] = []
    all_outputs: list[Any] = []
    with simulated_sparsecore() if case["sparsecore"] else contextlib.nullcontext():
        for index, data in enumerate(case["layers"]):
            prefix = f"l{index}_" if len(case["layers"]) > 1 else ""
            made = build_layer(data, case["sparsecore"])
            layers.append(made)
            if case["model"] == "sequential":
                (feature,) = data["features"]
                return (
                    keras.Sequential(
                        [
                            keras.Input(batch_shape=tuple(feature["input_shape"]), dtype="int32"),
                            made,
                        ],
                        name="sequential_model",
                    ),
                    layers,
                )
            inputs = _inputs(data, prefix)
            if case["model"] == "functional":
                outputs = made(inputs)
            elif case["model"] == "functional-in-functional":
                inner_inputs = _inputs(data, prefix)
                inner = keras.Model(inner_inputs, made(inner_inputs), name="inner_model")
                outputs = inner(inputs)
            elif case["model"] == "sequential-in-functional":
                (feature,) = data["features"]
                inner = keras.Sequential(
                    [keras.Input(batch_shape=tuple(feature["input_shape"]), dtype="int32"), made],
                    name="inner_sequential",
                )
                outputs = inner(inputs)
            else:
                raise ValueError(case["model"])
            all_inputs += keras.tree.flatten(inputs)
            all_outputs += _flat_outputs(outputs)
        model = keras.Model(all_inputs, all_outputs, name="model")
    return model, layers


def save(case: Case, path: Path) -> list[Any]:
    """Saves the model of ``case`` as a `.keras` file at ``path``; its embedding layers."""
    model, layers = build_model(case)
    model.save(path)
    return layers


def _features_on_sparsecore(feature_configs: Any) -> list[Any]:
    """The features whose table a SparseCore would hold ("auto" resolves to it on a TPU)."""
    return [f for f in keras.tree.flatten(feature_configs) if f.table.placement != "default_device"]


def _message(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def create_proto(features: list[Any]) -> Any:
    """`create_proto_from_feature_specs`: in embedding.py in 0.1.0, in embedding_proto_utils.py
    from 0.2.0."""
    for module in ("embedding_proto_utils", "embedding"):
        try:
            found = importlib.import_module(f"jax_tpu_embedding.sparsecore.lib.nn.{module}")
        except ImportError:
            continue
        if hasattr(found, "create_proto_from_feature_specs"):
            return found.create_proto_from_feature_specs(features, DEVICES, SPARSECORES)
    raise AssertionError("no create_proto_from_feature_specs in the library")


def stack(feature_specs: Any, stacking: Any) -> None:
    """What Keras-RS's `sparsecore_build` (keras_rs/src/layers/embedding/jax/
    distributed_embedding.py) does to the converted specs for ``stacking``: its stacking calls,
    `prepare_feature_specs_for_training`, then `update_preprocessing_parameters` with each
    stack's largest table limits (a Keras TableConfig has no COO buffer size)."""
    if stacking == "auto":
        table_stacking.auto_stack_tables(feature_specs, DEVICES, SPARSECORES)
    elif isinstance(stacking, str):
        raise ValueError(f"Unsupported table stacking {stacking}")
    elif isinstance(stacking, list) and stacking:
        groups = stacking if isinstance(stacking[0], list) else [stacking]
        for names in groups:
            table_stacking.stack_tables(feature_specs, names, DEVICES, SPARSECORES)
    embedding.prepare_feature_specs_for_training(feature_specs, DEVICES, SPARSECORES)
    # Then each stack's limits: the largest of its tables' (the library's default of 256 is
    # what a stack of several had until here).
    stacks = table_stacking.get_table_stacks(embedding.get_table_specs(feature_specs))
    embedding.update_preprocessing_parameters(
        feature_specs,
        embedding.SparseDenseMatmulInputStats(
            max_ids_per_partition={
                name: max(t.max_ids_per_partition for t in group) for name, group in stacks.items()
            },
            max_unique_ids_per_partition={
                name: max(t.max_unique_ids_per_partition for t in group)
                for name, group in stacks.items()
            },
            required_buffer_size_per_sc={},
            id_drop_counters=dict.fromkeys(stacks, 0),
        ),
        SPARSECORES,
    )


def converted(layer: Any) -> Any:
    """Keras-RS's JAX conversion of the layer's SparseCore features (raises as it does)."""
    return config_conversion.keras_to_jte_feature_configs(
        _features_on_sparsecore(layer._feature_configs)
    )


def saved_stacking(layer: Any) -> Any:
    """The ``table_stacking`` the layer's saved config reloads with ("auto" when absent), as
    JSON gives it back: a tuple, which the live layer ignores, comes back a list, and is
    honoured."""
    return json.loads(json.dumps(layer.get_config().get("table_stacking", "auto")))


def verdicts(layer: Any) -> dict[str, Any]:
    """Keras-RS's verdicts on ``layer`` (see the module docstring)."""
    features = layer._feature_configs
    tables: list[Any] = []
    for f in keras.tree.flatten(features):
        if not any(f.table is known for known in tables):
            tables.append(f.table)
    per_table: dict[str, str | None] = {}
    for t in tables:
        if t.placement == "default_device":
            continue
        try:
            config_conversion.keras_to_jte_optimizer(t.optimizer)
            per_table[t.name] = None
        except (ValueError, TypeError) as error:
            per_table[t.name] = _message(error)
    result: dict[str, Any] = {
        # In `get_config`'s order: a feature's table is an index into this.
        "tables": [t.name for t in tables],
        "conversion": None,
        "table_conversion": per_table,
        "stacks": None,
        "stacking_error": None,
        "proto": None,
        "declared_output_shapes": [
            list(shape) for shape in _shapes(layer.compute_output_shape(_input_shapes(layer)))
        ],
    }
    try:
        specs = converted(layer)
    except (ValueError, TypeError) as error:
        result["conversion"] = _message(error)
        return result
    if not specs:
        return result
    try:
        stack(specs, saved_stacking(layer))
    except (ValueError, TypeError, KeyError) as error:
        result["stacking_error"] = _message(error)
        return result
    stacks = table_stacking.get_table_stacks(embedding.get_table_specs(specs))
    result["stacks"] = {name: sorted(t.name for t in group) for name, group in stacks.items()}
    result["proto"] = create_proto(list(keras.tree.flatten(specs)))
    result["feature_specs"] = specs
    return result


def _input_shapes(layer: Any) -> Any:
    return keras.tree.map_structure(lambda f: tuple(f.input_shape), layer._feature_configs)


def _shapes(structure: Any) -> list[tuple[int, ...]]:
    """The shapes of a nested structure of shapes, flattened in the features' order."""
    paths = keras.tree.flatten_with_path(structure)
    # A shape is a tuple of ints: keep the leaves' parents.
    found: dict[tuple[Any, ...], list[int]] = {}
    for path, dim in paths:
        found.setdefault(tuple(path[:-1]), []).append(dim)
    return [tuple(dims) for dims in found.values()]


def output_shapes(layer: Any) -> list[list[int]]:
    """The shapes the layer returns on CPU for ids of each feature's input shape: its real call,
    traced by `jax.eval_shape` (not its `compute_output_shape`, which repeats the configs), so
    nothing is compiled."""
    ids = keras.tree.map_structure(
        lambda f: jax.ShapeDtypeStruct(tuple(f.input_shape), "int32"), layer._feature_configs
    )
    outputs = jax.eval_shape(layer, ids)
    return [list(output.shape) for output in keras.tree.flatten(outputs)]


def live_stacks(layer: Any) -> dict[str, list[str]] | None:
    """The stacks the live layer built (on the simulated SparseCore: Keras-RS's own
    `sparsecore_build` with the `table_stacking` it was given, not the saved one), or None for
    a layer with no SparseCore tables built."""
    config = getattr(layer, "_config", None)
    if config is None:
        return None
    stacks = table_stacking.get_table_stacks(embedding.get_table_specs(config.feature_specs))
    return {name: sorted(t.name for t in group) for name, group in stacks.items()}


def tensorcore_rows_trained(data: dict[str, Any]) -> dict[str, bool]:
    """For each table of the layer ``data`` placed on ``"default_device"``: whether one step of
    ``fit`` with the model's optimizer (SGD, learning rate 1) changes its rows while the table's
    own optimizer is whatever the case gives it (a learning rate of 0 would keep them)."""
    layer = build_layer(data)
    inputs = _inputs(data, "")
    outputs = _flat_outputs(layer(inputs))
    model = keras.Model(inputs, [keras.layers.Dense(1)(o) for o in outputs])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=1.0), loss="mse")
    before = {k: keras.ops.convert_to_numpy(v) for k, v in layer.get_embedding_tables().items()}
    ids = {
        f["name"]: keras.ops.convert_to_numpy(
            keras.ops.ones(tuple(f["input_shape"]), dtype="int32")
        )
        for f in data["features"]
    }
    if data["structure"] == "list":
        ids = list(ids.values())  # type: ignore[assignment]
    targets = [
        keras.ops.convert_to_numpy(keras.ops.ones((f["input_shape"][0], 1)))
        for f in data["features"]
    ]
    model.fit(ids, targets, epochs=1, batch_size=data["features"][0]["input_shape"][0], verbose=0)
    after = {k: keras.ops.convert_to_numpy(v) for k, v in layer.get_embedding_tables().items()}
    return {
        t["name"]: bool((before[t["name"]] != after[t["name"]]).any())
        for t in data["tables"]
        if t.get("placement") == "default_device"
    }
