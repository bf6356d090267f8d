"""`tpuemb diff old.keras new.keras` against Keras itself (`make test-keras`; skipped where
keras-rs is not installed): for each pair of layer configurations, the old model is built on
CPU with keras-rs, each table filled with its own values and saved; the new model is built and
loads the old file's weights (`model.load_weights`). What happened -- the load failed, a table
got another table's rows, a saved table was loaded nowhere -- is compared with diff's kinds
(restore-error, silent-reinit, orphaned-state) on the two saved files.

On CPU placement "auto" is the default device, so the saved weights are the default-device
tables (one EmbedReduce a table, by the place of its first feature); diff is told a TPU whose
"auto" is the default device too (`--tpu v4-8`: the JAX layer takes v5p and v6e devices for
SparseCore ones). The SparseCore half (the layer's own variables per stack) needs a TPU: not
here.
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

Tables = dict[str, tuple[int, int]]
# A feature's table by its key; a dict nests the features as Keras-RS takes them.
Features = dict[str, Any]

OLD_TABLES: Tables = {"a": (100, 8), "b": (50, 8)}
OLD_FEATURES: Features = {"fa": "a", "fb": "b"}
SAME: Tables = {"a": (100, 8), "b": (100, 8)}

# (name, old tables, old features, new tables, new features)
CASES: list[tuple[str, Tables, Features, Tables, Features]] = [
    ("unchanged", OLD_TABLES, OLD_FEATURES, OLD_TABLES, OLD_FEATURES),
    (
        "table renamed",
        OLD_TABLES,
        OLD_FEATURES,
        {"a2": (100, 8), "b": (50, 8)},
        {"fa": "a2", "fb": "b"},
    ),
    (
        "tables listed the other way",
        OLD_TABLES,
        OLD_FEATURES,
        {"b": (50, 8), "a": (100, 8)},
        OLD_FEATURES,
    ),
    ("features listed the other way", OLD_TABLES, OLD_FEATURES, OLD_TABLES, {"fb": "b", "fa": "a"}),
    ("feature renamed past another", OLD_TABLES, OLD_FEATURES, OLD_TABLES, {"zz": "a", "fb": "b"}),
    ("same shapes, feature renamed past another", SAME, OLD_FEATURES, SAME, {"zz": "a", "fb": "b"}),
    ("same shapes, tables swapped", SAME, OLD_FEATURES, SAME, {"fa": "b", "fb": "a"}),
    ("vocabulary grown", OLD_TABLES, OLD_FEATURES, {"a": (120, 8), "b": (50, 8)}, OLD_FEATURES),
    ("dimension grown", OLD_TABLES, OLD_FEATURES, {"a": (100, 16), "b": (50, 8)}, OLD_FEATURES),
    (
        "table added last",
        OLD_TABLES,
        OLD_FEATURES,
        {**OLD_TABLES, "c": (10, 8)},
        {**OLD_FEATURES, "fc": "c"},
    ),
    ("table removed last", OLD_TABLES, OLD_FEATURES, {"a": (100, 8)}, {"fa": "a"}),
    ("table removed first", OLD_TABLES, OLD_FEATURES, {"b": (50, 8)}, {"fb": "b"}),
    ("same shapes, first table removed", SAME, OLD_FEATURES, {"b": (100, 8)}, {"fb": "b"}),
    (
        "table shared by a new feature",
        OLD_TABLES,
        OLD_FEATURES,
        OLD_TABLES,
        {**OLD_FEATURES, "fc": "a"},
    ),
    (
        "shared table unshared",
        OLD_TABLES,
        {**OLD_FEATURES, "fc": "a"},
        {**OLD_TABLES, "c": (100, 8)},
        {**OLD_FEATURES, "fc": "c"},
    ),
    # keras.tree flattens each level's keys sorted, and Keras-RS's EmbedReduce dict follows:
    # {"a": {"z": ...}} before "a-x", whose joined path "a-x" sorts before "a.z".
    ("nested keys, tables swapped", SAME, OLD_FEATURES, SAME, {"a": {"z": "b"}, "a-x": "a"}),
    ("nested keys, tables kept", SAME, OLD_FEATURES, SAME, {"a": {"z": "a"}, "a-x": "b"}),
    ("nested keys, dotted key", SAME, OLD_FEATURES, SAME, {"a": {"z": "a"}, "a.b": "b"}),
    ("nested keys, dotted key swapped", SAME, OLD_FEATURES, SAME, {"a": {"z": "b"}, "a.b": "a"}),
    ("nested keys, underscore", SAME, OLD_FEATURES, SAME, {"a": {"x": "a"}, "a_x": "b"}),
    # One joined path twice: Keras-RS keys its dict by it, keeping the first place and the
    # later feature's table (here "a": "b"'s table is made by no EmbedReduce at all).
    # (an error, TE772: ignored by diff_verdict's .tpuemb.toml, as diff refuses it otherwise)
    ("one joined path twice", SAME, OLD_FEATURES, SAME, {"a.b": "a", "a": {"b": "b"}}),
    ("nested keys, slash", SAME, OLD_FEATURES, SAME, {"a": {"x": "b"}, "a/x": "a"}),
    (
        "nested both sides, keys around the dot",
        SAME,
        {"p": {"q": "a"}, "p+q": "b"},
        SAME,
        {"p": {"q": "b"}, "p+q": "a"},
    ),
    # A table Keras fails to load at its first place tries again at each later place of it (a
    # later feature of the same table), and a success there clears the failure: b, shared by
    # fb and fc, misses at place 0 (a's array) and loads b's at place 1.
    (
        "first table removed, the next one shared",
        OLD_TABLES,
        {**OLD_FEATURES, "fc": "b"},
        {"b": (50, 8)},
        {"fb": "b", "fc": "b"},
    ),
    # ... and fails for good when no later place holds its shape.
    (
        "first table removed, the next one shared and grown",
        OLD_TABLES,
        {**OLD_FEATURES, "fc": "b"},
        {"b": (60, 8)},
        {"fb": "b", "fc": "b"},
    ),
]


def _model(tables: Tables, features: Features, placement: str = "auto") -> tuple[Any, Any]:
    import keras
    import keras_rs

    configs = {
        name: keras_rs.layers.TableConfig(
            name=name,
            vocabulary_size=rows,
            embedding_dim=dim,
            optimizer="adam",
            placement=placement,
        )
        for name, (rows, dim) in tables.items()
    }

    count = iter(range(1000))

    def nested(value: Features) -> dict[str, Any]:
        # Names of their own: the keys ("a/x", "a" / "x" and "a_x") make no input names.
        return {
            key: nested(table)
            if isinstance(table, dict)
            else keras_rs.layers.FeatureConfig(
                name=f"feature{next(count)}",
                table=configs[table],
                input_shape=(4, 1),
                output_shape=(4, tables[table][1]),
            )
            for key, table in value.items()
        }

    feature_configs = nested(features)
    inputs = keras.tree.map_structure(
        lambda feature: keras.Input(batch_shape=(4, 1), dtype="int32", name=feature.name),
        feature_configs,
    )
    layer = keras_rs.layers.DistributedEmbedding(feature_configs)
    return keras.Model(inputs, layer(inputs)), layer


def _set_tables(layer: Any, tables: dict[str, Any]) -> None:
    """Fills the layer's default-device tables: the JAX layer's set_embedding_tables; the
    TensorFlow layer has none, and its EmbedReduce sub-layers (named after their tables) are
    assigned."""
    if hasattr(layer, "set_embedding_tables"):
        layer.set_embedding_tables(tables)
        return
    for embedding in layer._default_device_embedding_layers.values():
        if embedding.name in tables:
            embedding.embeddings.assign(tables[embedding.name])


def _tables(layer: Any) -> dict[str, Any]:
    import numpy as np

    return {name: np.asarray(value) for name, value in layer.get_embedding_tables().items()}


def keras_verdict(
    old_tables: Tables,
    old_features: Features,
    new_tables: Tables,
    new_features: Features,
    folder: Path,
    placement: str = "auto",
) -> tuple[set[str], Path, Path]:
    """What loading the old model's weights into the new one does, as diff's kinds; and the two
    saved files."""
    import numpy as np

    old_model, old_layer = _model(old_tables, old_features, placement)
    # Each table its own values: table i holds i + 1 + row / 1000 in every column.
    _set_tables(
        old_layer,
        {
            name: np.full(shape, index + 1.0, dtype="float32") + np.arange(shape[0])[:, None] / 1000
            for index, (name, shape) in enumerate(old_tables.items())
        },
    )
    saved = _tables(old_layer)
    old_path, new_path = folder / "old.keras", folder / "new.keras"
    old_model.save(old_path)
    new_model, new_layer = _model(new_tables, new_features, placement)
    new_model.save(new_path)
    try:
        new_model.load_weights(old_path)
    except ValueError:
        return {"restore-error"}, old_path, new_path
    kinds: set[str] = set()
    loaded_from: set[str] = set()
    made = _tables(new_layer)  # the tables the layer made (a table no feature reaches: none)
    for name, values in made.items():
        source = next(
            (
                old
                for old, held in saved.items()
                if held.shape == values.shape and np.array_equal(held, values)
            ),
            None,
        )
        if source is None:
            continue  # not loaded: Keras raised above, or a fresh table (none here)
        loaded_from.add(source)
        if source != name and (source in new_tables or name in old_tables):
            kinds.add("silent-reinit")  # another table's rows
    if set(saved) - loaded_from - set(made):
        kinds.add("orphaned-state")
    return kinds, old_path, new_path


def diff_verdict(old_path: Path, new_path: Path, backend: str = "jax") -> set[str]:
    # Two features at one path are an error (TE772), and diff refuses a model with errors: here
    # the point is what it says of the one the layer keeps.
    for folder in {old_path.parent, new_path.parent}:
        (folder / ".tpuemb.toml").write_text('ignore = ["TE772"]\n')
    result = CliRunner().invoke(
        main,
        [
            "diff",
            "--tpu",
            "v4-8",
            "--keras-backend",
            backend,
            "--format",
            "json",
            "--fail-on",
            "none",
            str(old_path),
            str(new_path),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["summary"]
    return {kind for kind, found in summary.items() if found}


@pytest.mark.parametrize(
    ("name", "old_tables", "old_features", "new_tables", "new_features"), CASES
)
def test_diff_says_what_loading_the_saved_weights_does(
    name: str,
    old_tables: Tables,
    old_features: Features,
    new_tables: Tables,
    new_features: Features,
    tmp_path: Path,
) -> None:
    kinds, old_path, new_path = keras_verdict(
        old_tables, old_features, new_tables, new_features, tmp_path
    )
    said = diff_verdict(old_path, new_path)
    print(f"{name}: Keras {sorted(kinds) or 'loads every table'}; tpuemb diff {sorted(said)}")
    if "restore-error" in kinds:
        assert "restore-error" in said
    else:
        assert said == kinds


# The SparseCore path, on Keras-RS's own code with a simulated SparseCore (tests/keras_probe.py:
# one CPU device of 4 SparseCores): the layer's own variables, per stack its table and slots,
# then `iteration`. Two optimizers, so that no two tables share a stack (jax-tpu-embedding stacks
# only tables of one optimizer).
# (name, old tables, old features, new tables, new features); a table: (rows, dim, optimizer)
SparseTables = dict[str, tuple[int, int, str]]
SC_TABLES: SparseTables = {"movies": (1000, 16, "adagrad"), "shows": (1000, 16, "sgd")}
SC_FEATURES: Features = {"movie": "movies", "show": "shows"}
SC_CASES: list[Any] = [
    ("unchanged", SC_TABLES, SC_FEATURES, SC_TABLES, SC_FEATURES),
    (
        "padded alike",
        SC_TABLES,
        SC_FEATURES,
        {**SC_TABLES, "movies": (1010, 16, "adagrad")},
        SC_FEATURES,
    ),
    (
        "table renamed",
        SC_TABLES,
        SC_FEATURES,
        {"films": (1000, 16, "adagrad"), "shows": (1000, 16, "sgd")},
        {"movie": "films", "show": "shows"},
    ),
    (
        "feature renamed past another",
        SC_TABLES,
        SC_FEATURES,
        SC_TABLES,
        {"title": "movies", "show": "shows"},
    ),
    (
        "table renamed past another",
        SC_TABLES,
        SC_FEATURES,
        {"tv": (1000, 16, "adagrad"), "shows": (1000, 16, "sgd")},
        {"movie": "tv", "show": "shows"},
    ),
    (
        "one stack, feature renamed past another",
        {"movies": (1000, 16, "adagrad"), "shows": (1000, 16, "adagrad")},
        SC_FEATURES,
        {"movies": (1000, 16, "adagrad"), "shows": (1000, 16, "adagrad")},
        {"title": "movies", "show": "shows"},
        # keras-rs stacks the two tables into one, whose tables follow the features' order.
    ),
    (
        "vocabulary grown",
        SC_TABLES,
        SC_FEATURES,
        {**SC_TABLES, "movies": (3000, 16, "adagrad")},
        SC_FEATURES,
    ),
    (
        "optimizer with slots",
        SC_TABLES,
        SC_FEATURES,
        {**SC_TABLES, "shows": (1000, 16, "adam")},
        SC_FEATURES,
    ),
]


def _sparsecore_model(tables: SparseTables, features: Features) -> tuple[Any, Any]:
    import keras
    import keras_rs

    from tests.keras_probe import simulated_sparsecore

    with simulated_sparsecore():
        configs = {
            name: keras_rs.layers.TableConfig(
                name=name, vocabulary_size=rows, embedding_dim=dim, optimizer=optimizer
            )
            for name, (rows, dim, optimizer) in tables.items()
        }
        feature_configs = {
            name: keras_rs.layers.FeatureConfig(
                name=name,
                table=configs[table],
                input_shape=(32, 1),
                output_shape=(32, tables[table][1]),
            )
            for name, table in features.items()
        }
        inputs = {
            name: keras.Input(batch_shape=(32, 1), dtype="int32", name=name) for name in features
        }
        layer = keras_rs.layers.DistributedEmbedding(feature_configs)
        return keras.Model(inputs, layer(inputs)), layer


def _stack_tables(variable: Any) -> tuple[str, str]:
    """The stack a variable is of (`var:<stack>:table[:slot:<slot>]`) and what it is."""
    name = variable.path.split("/")[-1]
    if name == "iteration":
        return "", name
    _, stack, *rest = name.split(":")
    return stack, ":".join(rest)


@pytest.mark.parametrize(
    ("name", "old_tables", "old_features", "new_tables", "new_features"), SC_CASES
)
def test_diff_on_the_sparsecore_path(
    name: str,
    old_tables: SparseTables,
    old_features: Features,
    new_tables: SparseTables,
    new_features: Features,
    tmp_path: Path,
) -> None:
    import numpy as np

    from tests.keras_layers import SPARSECORES
    from tpuemb_cli.frontends.keras.compat.weights import weight_changes
    from tpuemb_cli.frontends.keras.spec.conversion import Topology
    from tpuemb_cli.keras import _model

    old_model, old_layer = _sparsecore_model(old_tables, old_features)
    saved = {}
    for index, variable in enumerate(old_layer.weights):
        variable.assign(np.full(variable.shape, index + 1.0, dtype="float32"))
        saved[index + 1.0] = _stack_tables(variable)
    old_model.save(tmp_path / "old.keras")
    new_model, new_layer = _sparsecore_model(new_tables, new_features)
    kinds: set[str] = set()
    try:
        new_model.load_weights(tmp_path / "old.keras")
    except ValueError:
        kinds.add("restore-error")
    else:
        old_stacks = {stack for stack, _ in saved.values()}
        for variable in new_layer.weights:
            stack, what = _stack_tables(variable)
            if not stack:
                continue
            source_stack, source_what = saved[float(np.asarray(variable).ravel()[0])]
            traded = source_stack != stack and (
                stack in old_stacks or set(source_stack.split("_")) & set(new_tables)
            )
            if traded or source_what != what:
                kinds.add("silent-reinit")
    # The same comparison `tpuemb diff` makes, on the layers' configs as Keras-RS writes them,
    # for the topology of this CPU: one device of SPARSECORES SparseCores.
    topology = Topology("jax", 1, SPARSECORES, "v5p")
    said = {
        change.kind for change in weight_changes(_model(old_model), _model(new_model), topology)
    }
    print(
        f"sparsecore, {name}: Keras {sorted(kinds) or 'loads every stack'}; tpuemb {sorted(said)}"
    )
    assert said == kinds


def _layers_model(count: int) -> Any:
    """A model of ``count`` DistributedEmbedding layers of one table each."""
    import keras
    import keras_rs

    inputs, outputs = [], []
    for index in range(count):
        table = keras_rs.layers.TableConfig(
            name=f"t{index}", vocabulary_size=10, embedding_dim=4, optimizer="adam"
        )
        features = {
            f"f{index}": keras_rs.layers.FeatureConfig(
                name=f"f{index}", table=table, input_shape=(4, 1), output_shape=(4, 4)
            )
        }
        layer_inputs = {
            name: keras.Input(batch_shape=(4, 1), dtype="int32", name=name) for name in features
        }
        outputs.append(keras_rs.layers.DistributedEmbedding(features)(layer_inputs))
        inputs.append(layer_inputs)
    return keras.Model(inputs, outputs)


@pytest.mark.parametrize(
    ("old_count", "new_count", "expected"), [(1, 2, {"restore-error"}), (2, 1, {"orphaned-state"})]
)
def test_a_layer_added_fails_the_load_and_one_removed_is_ignored(
    old_count: int, new_count: int, expected: set[str], tmp_path: Path
) -> None:
    _layers_model(old_count).save(tmp_path / "old.keras")
    new_model = _layers_model(new_count)
    new_model.save(tmp_path / "new.keras")
    try:
        new_model.load_weights(tmp_path / "old.keras")
        kinds = {"orphaned-state"}  # the saved model's second layer: loaded nowhere
    except ValueError:
        kinds = {"restore-error"}
    assert kinds == expected
    assert diff_verdict(tmp_path / "old.keras", tmp_path / "new.keras") == expected


# Where each layer sits: in the model itself, or in a Functional model of its own inside it.
# Keras saves a layer's weights by its class and place among its models' layers
# (layers/distributed_embedding, layers/functional/layers/distributed_embedding), not by its
# name nor its order among the DistributedEmbedding layers.
# (name, old layers, new layers); a layer: (nested, its tables, one feature a table), or
# (True, None): a nested model of a layer of another class.
Placed = list[tuple[bool, Tables | None]]
A: Tables = {"a": (100, 8)}
B: Tables = {"b": (100, 8)}
B_GROWN: Tables = {"b": (120, 8)}
PLACED_CASES: list[tuple[str, Placed, Placed]] = [
    ("unchanged, nested", [(True, OLD_TABLES)], [(True, OLD_TABLES)]),
    ("moved into a nested model", [(False, OLD_TABLES)], [(True, OLD_TABLES)]),
    ("moved out of a nested model", [(True, OLD_TABLES)], [(False, OLD_TABLES)]),
    ("two layers trade places", [(False, A), (True, B)], [(True, A), (False, B)]),
    (
        "two layers trade places, shapes differ",
        [(False, A), (True, B_GROWN)],
        [(True, A), (False, B_GROWN)],
    ),
    ("two layers listed the other way", [(False, A), (True, B)], [(True, B), (False, A)]),
    ("a nested layer added", [(False, A)], [(False, A), (True, B)]),
    ("a nested layer removed", [(False, A), (True, B)], [(False, A)]),
    # Two nested models: `functional` and `functional_1`, by their order among the layers.
    ("two nested models trade places", [(True, A), (True, B)], [(True, B), (True, A)]),
    # A nested model with no DistributedEmbedding (None) takes `functional` before it.
    ("a model without tables nested before", [(True, A)], [(True, None), (True, A)]),
    ("a model without tables nested after", [(True, A)], [(True, A), (True, None)]),
]


def _placed_model(layers: Placed, placement: str = "auto") -> tuple[Any, dict[str, Any]]:
    """A model of the DistributedEmbedding layers ``layers``; and each table's layer."""
    import keras
    import keras_rs

    inputs, outputs, layer_of = [], [], {}
    for index, (nested, tables) in enumerate(layers):
        if tables is None:
            outer = keras.Input(batch_shape=(4, 1), name=f"other{index}")
            inner = keras.Input(batch_shape=(4, 1), name=f"other{index}")
            outputs.append(keras.Model(inner, keras.layers.Identity()(inner))(outer))
            inputs.append(outer)
            continue
        features = {
            f"f{name}": keras_rs.layers.FeatureConfig(
                name=f"f{name}",
                table=keras_rs.layers.TableConfig(
                    name=name,
                    vocabulary_size=rows,
                    embedding_dim=dim,
                    optimizer="adam",
                    placement=placement,
                ),
                input_shape=(4, 1),
                output_shape=(4, dim),
            )
            for name, (rows, dim) in tables.items()
        }
        layer_inputs = {
            name: keras.Input(batch_shape=(4, 1), dtype="int32", name=name) for name in features
        }
        layer = keras_rs.layers.DistributedEmbedding(features)
        if nested:
            inner_inputs = {
                name: keras.Input(batch_shape=(4, 1), dtype="int32", name=name) for name in features
            }
            holder = keras.Model(inner_inputs, layer(inner_inputs))
            outputs.append(holder(layer_inputs))
        else:
            outputs.append(layer(layer_inputs))
        inputs.append(layer_inputs)
        layer_of.update(dict.fromkeys(tables, layer))
    return keras.Model(inputs, outputs), layer_of


def placed_verdict(
    old_layers: Placed, new_layers: Placed, folder: Path, placement: str = "auto"
) -> tuple[set[str], Path, Path]:
    """What loading the old model's weights into the new one does, as diff's kinds; and the two
    saved files."""
    import numpy as np

    old_model, old_layer_of = _placed_model(old_layers, placement)
    saved = {}
    for index, (table, layer) in enumerate(old_layer_of.items()):
        values = layer.get_embedding_tables()[table]
        _set_tables(layer, {table: np.full(values.shape, index + 1.0, dtype="float32")})
        saved[index + 1.0] = table
    old_path, new_path = folder / "old.keras", folder / "new.keras"
    old_model.save(old_path)
    new_model, new_layer_of = _placed_model(new_layers, placement)
    new_model.save(new_path)
    kinds: set[str] = set()
    try:
        new_model.load_weights(old_path)
    except ValueError:
        kinds.add("restore-error")
    else:
        loaded = set()
        for table, layer in new_layer_of.items():
            source = saved.get(float(np.asarray(layer.get_embedding_tables()[table]).ravel()[0]))
            if source is None:
                continue  # freshly initialized: not loaded (Keras raised above, or none here)
            loaded.add(source)
            if source != table:
                kinds.add("silent-reinit")
        if set(saved.values()) - loaded:
            kinds.add("orphaned-state")
    return kinds, old_path, new_path


@pytest.mark.parametrize(("name", "old_layers", "new_layers"), PLACED_CASES)
def test_diff_pairs_layers_by_their_place_in_the_model(
    name: str, old_layers: Placed, new_layers: Placed, tmp_path: Path
) -> None:
    kinds, old_path, new_path = placed_verdict(old_layers, new_layers, tmp_path)
    said = diff_verdict(old_path, new_path)
    print(f"{name}: Keras {sorted(kinds) or 'loads every table'}; tpuemb diff {sorted(said)}")
    if "restore-error" in kinds:
        assert "restore-error" in said
    else:
        assert said == kinds
