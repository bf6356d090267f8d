"""What a `.keras` file of Keras-RS's TensorFlow backend holds of a `DistributedEmbedding` on a
TPU, against keras-rs and TensorFlow 2.21 themselves (run by `make test-tf`; skipped elsewhere).

No CPU build of the layer reaches its TPU path, so each layer of tests/keras_layers.py is built
under a stand-in TPUStrategy (tests/tf_tpu_standin.py) of DEVICES replicas whose chips report
embedding feature V2 (v5p: the layer builds the real `TPUEmbeddingV2`) or V1 (v4: the real
`TPUEmbedding`). Every variable is then set to values of its own, the model is saved with
`model.save`, and:

- the weights file holds exactly what tpuemb says the layer saves
  (frontends/keras/compat/weights: the gradient trap, then the default-device tables), and none
  of the TPU embedding's tables;
- `tpuemb check --keras-backend tensorflow` reports TE773 (keras-tables-not-saved) for exactly
  the layers that built a TPU embedding, naming exactly its tables;
- a second model built alike loads the file with `load_weights`: its default-device tables get
  the saved values, its TPU embedding's tables keep their own initial values (nothing restores
  them), and `tpuemb diff` of the file with itself reports exactly `unsaved-state` for those
  tables;
- for edited pairs (every table moved to the default device, a TPU table grown, one
  default-device table moved to the TPU), Keras's `load_weights` of the old file into the new
  model raises exactly when `tpuemb diff` reports a restore-error.
"""

from __future__ import annotations

import copy
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

os.environ["KERAS_BACKEND"] = "tensorflow"
pytest.importorskip("tensorflow")
pytest.importorskip("keras_rs")
pytest.importorskip("h5py")

import h5py
import keras
import keras_rs
import numpy as np
import tensorflow as tf
from click.testing import CliRunner

from tests.keras_build import build_feature_configs
from tests.keras_layers import DEVICES, all_cases
from tests.tf_tpu_standin import tpu_strategy_standin
from tpuemb_cli.cli import main
from tpuemb_cli.frontends.keras.spec.conversion import Topology

# The embedding feature, and the slice tpuemb is told (DEVICES chips of it).
CHIPS = {"V2": "v5p-8", "V1": "v4-8"}
TOPOLOGIES = {
    "V2": Topology("tensorflow", DEVICES, 4, "v5p"),
    "V1": Topology("tensorflow", DEVICES, 0, "v4"),
}
DATA = [
    (f"{case['name']}/{data['name']}", data)
    for case in all_cases()
    for data in case["layers"]
    if case["model"] == "functional"
]


def _with_tpu_tables(data: dict[str, Any]) -> bool:
    return any(t.get("placement", "auto") != "default_device" for t in data["tables"])


LAYERS = [
    pytest.param(data, feature, id=f"{feature}-{name}") for name, data in DATA for feature in CHIPS
]


def _per_replica(shape: Any) -> tuple[Any, ...]:
    return (shape[0] // DEVICES, *shape[1:])


def _build(data: dict[str, Any]) -> tuple[Any, Any]:
    """The model and its layer, built as on the TPU: the layer from its per-replica input shapes
    (TPUEmbedding checks them against the features' outputs), the model on the global batch."""
    feature_configs = build_feature_configs(data)
    layer = keras_rs.layers.DistributedEmbedding(
        feature_configs, table_stacking=data["table_stacking"], name=data["name"]
    )
    layer.build(keras.tree.map_structure(lambda f: _per_replica(f.input_shape), feature_configs))
    inputs = keras.tree.map_structure(
        lambda f: keras.Input(batch_shape=tuple(f.input_shape), dtype="int32", name=f.name),
        feature_configs,
    )
    return keras.Model(inputs, layer(inputs)), layer


def _engine_variables(layer: Any) -> list[Any]:
    """The TPU embedding's variables (tables and slots), each shard apart."""
    engine = getattr(layer, "_tpu_embedding", None)
    if engine is None:
        return []
    found = []
    for slots in engine._variables.values():
        for variable in slots.values():
            # A TPUEmbeddingV2 table is a distributed variable of one shard a replica.
            found += list(getattr(variable, "values", [variable]))
    return found


def _engine_tables(layer: Any) -> set[str]:
    engine = getattr(layer, "_tpu_embedding", None)
    return set() if engine is None else {t.name for t in engine._table_config}


def _fill(model: Any, layer: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for variable in [*model.weights, *_engine_variables(layer)]:
        variable.assign(rng.normal(size=tuple(variable.shape)).astype("float32"))


def _values(variables: list[Any]) -> list[Any]:
    return [np.array(v.numpy() if hasattr(v, "numpy") else v) for v in variables]


def _built(data: dict[str, Any], feature: str) -> tuple[Any, Any] | None:
    """The model, or None for a layer keras-rs or TensorFlow refuses (tpuemb's verdicts on those
    are tests/test_tf_keras_oracle.py's)."""
    try:
        return _build(data)
    except (ValueError, TypeError, KeyError, NotImplementedError):
        return None


def _tpuemb(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _check(path: Path, feature: str) -> list[dict[str, Any]]:
    args = ("check", "--format", "json", "--keras-backend", "tensorflow", "--tpu", CHIPS[feature])
    found: list[dict[str, Any]] = _tpuemb(*args, str(path))["findings"]
    return found


def _diff(old: Path, new: Path, feature: str) -> list[dict[str, Any]]:
    """diff's changes. A model with errors is not compared; the errors these layers may have
    (a declared output the layer does not return, TE761; two features at one path, TE772) do
    not change what the file holds, and are set aside."""
    for folder in {old.parent, new.parent}:
        (folder / ".tpuemb.toml").write_text('ignore = ["TE761", "TE772"]\n')
    args = ("diff", "--format", "json", "--fail-on", "none", "--keras-backend", "tensorflow")
    changes: list[dict[str, Any]] = _tpuemb(*args, "--tpu", CHIPS[feature], str(old), str(new))[
        "changes"
    ]
    return changes


def _datasets(path: Path) -> dict[str, tuple[int, ...]]:
    """Every array of the file's weights, by its path in model.weights.h5."""
    with zipfile.ZipFile(path) as archive, archive.open("model.weights.h5") as weights:
        found: dict[str, tuple[int, ...]] = {}
        with h5py.File(weights, "r") as h5:
            h5.visititems(
                lambda name, item: (
                    found.__setitem__(name, tuple(item.shape))
                    if isinstance(item, h5py.Dataset)
                    else None
                )
            )
    return found


def _expected_entries(path: Path, feature: str) -> tuple[list[Any], list[Any]]:
    """What tpuemb says the file's one layer saves: its own variables' shapes, and its
    default-device tables' shapes in their order."""
    from tpuemb_cli.frontends.keras.compat.weights import layer_entries
    from tpuemb_cli.load import load_input

    document: Any = load_input(path.read_bytes(), str(path))
    [layer] = document.message.layers
    entries = layer_entries(layer, 0, TOPOLOGIES[feature])
    return [e.shape for e in entries.own], [e.shape for e in entries.default if e.shape is not None]


@pytest.mark.parametrize(("data", "feature"), LAYERS)
def test_what_the_file_holds_and_what_loading_it_restores(
    data: dict[str, Any], feature: str, tmp_path: Path
) -> None:
    with tpu_strategy_standin(feature, DEVICES):
        built = _built(data, feature)
        if built is None:
            pytest.skip("keras-rs or TensorFlow refuses the layer")
        model, layer = built
        _fill(model, layer, 1)
        saved_default = _values(model.weights)
        saved_engine = _values(_engine_variables(layer))
        path = tmp_path / "model.keras"
        model.save(path)
        fresh_model, fresh_layer = _build(data)
        initial_engine = _values(_engine_variables(fresh_layer))
        fresh_model.load_weights(path)
        loaded_default = _values(fresh_model.weights)
        loaded_engine = _values(_engine_variables(fresh_layer))
    tables = _engine_tables(layer)

    # The file: the layer's own variables (the gradient trap, when it built a TPU embedding),
    # then its default-device tables, and nothing else -- as tpuemb says.
    own, default = _expected_entries(path, feature)
    arrays = _datasets(path)
    own_saved = [shape for name, shape in sorted(arrays.items()) if name.split("/")[-2] == "vars"
                 and "_default_device_embedding_layers" not in name]  # fmt: skip
    assert own_saved == own, arrays
    assert sorted(arrays.values()) == sorted([*own, *default]), arrays
    assert (own == [(1,)]) == bool(tables)

    # check: TE773 for the layer exactly when it built a TPU embedding, naming its tables.
    found = [f for f in _check(path, feature) if f["rule"] == "TE773"]
    assert len(found) <= 1, found
    te773 = found[0] if found else None
    if tables:
        assert te773 is not None
        named = {name for name in tables if f"'{name}'" in te773["message"]}
        assert named == tables or len(tables) > 8, (tables, te773["message"])
    else:
        assert te773 is None, te773

    # Loading: the default-device tables come back; the TPU embedding's stay as initialised.
    for before, after in zip(saved_default, loaded_default, strict=True):
        np.testing.assert_array_equal(before, after)
    for before, initial, after in zip(saved_engine, initial_engine, loaded_engine, strict=True):
        np.testing.assert_array_equal(initial, after)
        assert not np.array_equal(before, after)

    # diff of the file with itself: unsaved-state for the layer's TPU tables, nothing else.
    changes = _diff(path, path, feature)
    assert [c["kind"] for c in changes] == (["unsaved-state"] if tables else [])
    if tables and len(tables) <= 8:
        assert {n for n in tables if f"'{n}'" in changes[0]["message"]} == tables


def _moved_to_default(data: dict[str, Any]) -> dict[str, Any]:
    edited = copy.deepcopy(data)
    for table in edited["tables"]:
        table["placement"] = "default_device"
    edited["table_stacking"] = "auto"
    return edited


def _tpu_table_grown(data: dict[str, Any]) -> dict[str, Any]:
    edited = copy.deepcopy(data)
    for table in edited["tables"]:
        if table.get("placement", "auto") != "default_device":
            table["vocabulary_size"] += 8 * DEVICES
            break
    return edited


def _one_moved_to_tpu(data: dict[str, Any]) -> dict[str, Any]:
    edited = copy.deepcopy(data)
    for table in edited["tables"]:
        if table.get("placement") == "default_device":
            table["placement"] = "auto"
            break
    return edited


EDITS = {"to-default": _moved_to_default, "grown": _tpu_table_grown, "to-tpu": _one_moved_to_tpu}
PAIRS = [
    pytest.param(data, EDITS[edit](data), feature, id=f"{feature}-{edit}-{name}")
    for name, data in DATA[::3]
    for edit in EDITS
    for feature in CHIPS
]


def _placed(placements: dict[str, str]) -> dict[str, Any]:
    """A layer of tables of one shape, one feature each, placed as ``placements`` says."""
    from tests.keras_layers import feature, layer, table

    tables = [table(name, 64, 8, "adagrad", placement=p) for name, p in placements.items()]
    features = [feature(f"f_{t['name']}", i, 8) for i, t in enumerate(tables)]
    return layer("embedding", tables, features)


# Tables of one shape moving between the TPU and the default device: a table the old file never
# held (it was on the TPU) that takes a saved place loads another table's rows.
TRADES = {
    "trade": ({"a": "auto", "b": "default_device"}, {"a": "default_device", "b": "auto"}),
    "to-default-one-removed": (
        {"a": "auto", "b": "default_device", "c": "auto"},
        {"a": "default_device", "c": "auto"},
    ),
    "both-to-default": (
        {"a": "auto", "b": "default_device"},
        {"a": "default_device", "b": "default_device"},
    ),
    "default-to-tpu": (
        {"a": "default_device", "b": "default_device"},
        {"a": "auto", "b": "default_device"},
    ),
}
PAIRS += [
    pytest.param(_placed(old), _placed(new), feature, id=f"{feature}-{name}")
    for name, (old, new) in TRADES.items()
    for feature in CHIPS
]


def _default_tables(model: Any, layer: Any) -> dict[str, Any]:
    """The layer's default-device tables' values, by table name (none when every table is on
    the TPU: the layer then has no such sub-layers)."""
    embeddings = getattr(layer, "_default_device_embedding_layers", {})
    return {e.name: np.array(e.embeddings.numpy()) for e in embeddings.values()}


@pytest.mark.parametrize(("data", "edited", "feature"), PAIRS)
def test_loading_fails_exactly_where_diff_says_restore_error(
    data: dict[str, Any], edited: dict[str, Any], feature: str, tmp_path: Path
) -> None:
    """Keras's load_weights of the old file into the new model raises exactly where diff says
    restore-error; where it loads, each default-device table holds another table's saved rows
    exactly where diff says silent-reinit."""
    if edited == data:
        pytest.skip("the edit changes nothing in this layer")
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old_path, new_path = tmp_path / "old" / "m.keras", tmp_path / "new" / "m.keras"
    with tpu_strategy_standin(feature, DEVICES):
        old, new = _built(data, feature), _built(edited, feature)
        if old is None or new is None:
            pytest.skip("keras-rs or TensorFlow refuses one of the layers")
        _fill(*old, 1)
        _fill(*new, 2)
        saved = _default_tables(*old)
        old[0].save(old_path)
        new[0].save(new_path)
        try:
            new[0].load_weights(old_path)
            raised = None
        except ValueError as error:
            raised = error
        loaded = _default_tables(*new)
    changes = _diff(old_path, new_path, feature)
    kinds = {c["kind"] for c in changes}
    assert ("restore-error" in kinds) == (raised is not None), (kinds, raised)
    assert ("unsaved-state" in kinds) == bool(_engine_tables(new[1]))
    if raised is not None:
        return
    others = {
        name
        for name, values in loaded.items()
        for source, held in saved.items()
        if source != name and held.shape == values.shape and np.array_equal(held, values)
    }
    said = {c["table"] for c in changes if c["kind"] == "silent-reinit"}
    assert said == others, (said, others)


def test_enough_layers_build_a_tpu_embedding() -> None:
    built = {"V1": 0, "V2": 0}
    for _, data in DATA:
        for feature in CHIPS:
            with tpu_strategy_standin(feature, DEVICES):
                model = _built(data, feature)
            if model is not None and _engine_tables(model[1]):
                built[feature] += 1
    assert built["V1"] >= 15 and built["V2"] >= 15, built
    assert tf.__version__.startswith("2.21"), tf.__version__


def _read_on_cpu(data: dict[str, Any]) -> Any:
    """What tpuemb reads of the layer off the TPU (tests/test_tf_keras_oracle.py's way): the
    layer built on CPU, or its feature configs where the CPU refuses placement "sparsecore"."""
    feature_configs = build_feature_configs(data)
    try:
        return keras_rs.layers.DistributedEmbedding(
            feature_configs, table_stacking=data["table_stacking"], name=data["name"]
        )
    except ValueError:
        return feature_configs


# Errors that need not stop the TPU path from building: a declared output the layer does not
# return (TE761: where TPUEmbedding's build refuses it, its message says so), two features at
# one path (TE772: the layer keeps one).
BUILDS_ANYWAY = {"TE761", "TE772"}


@pytest.mark.parametrize(("data", "feature"), LAYERS)
def test_the_tpu_path_refuses_exactly_what_tpuemb_calls_an_error(
    data: dict[str, Any], feature: str
) -> None:
    """The real layer on the TPU path (its conversion, then TPUEmbeddingV2's or TPUEmbedding's
    own constructor and build) against tpuemb's errors for the layer read on CPU."""
    try:
        read = _read_on_cpu(data)
    except (ValueError, TypeError, KeyError) as error:
        pytest.skip(f"Keras-RS refuses the configs themselves: {error}")
    if getattr(read, "_table_stacking", "auto") != data["table_stacking"]:
        # Built on CPU with no table on the SparseCores, the layer keeps no table_stacking (its
        # CPU path drops it; tests/test_tf_keras_oracle.py checks TE766 against the conversion).
        pytest.skip("what tpuemb reads on CPU has lost the layer's table_stacking")
    with tpu_strategy_standin(feature, DEVICES):
        try:
            _build(data)
            refused = None
        except (ValueError, TypeError, KeyError, NotImplementedError) as error:
            refused = f"{type(error).__name__}: {error}"
    topology = TOPOLOGIES[feature]
    from tpuemb_cli.keras import lint_keras

    findings = lint_keras(
        read,
        backend="tensorflow",
        global_device_count=topology.global_device_count,
        num_sc_per_device=topology.num_sc_per_device,
        accelerator=topology.accelerator,
    )
    errors = {f.rule for f in findings if str(f.severity) == "error"}
    if refused:
        assert errors, f"the TPU path raised {refused}; tpuemb reported no error"
        if "Inconsistent shape founded for input feature" in refused:
            # The feature TensorFlow names, reported with TensorFlow's reason.
            name = refused.split("input feature ")[1].split(",")[0]
            assert any(
                f.rule == "TE761"
                and f"'{name}'" in f.message
                and "TPUEmbedding's build raises" in f.message
                for f in findings
            ), [f.message for f in findings if f.rule == "TE761"]
    else:
        unexpected = sorted(errors - BUILDS_ANYWAY)
        assert unexpected == [], [(f.rule, f.message) for f in findings if f.rule in unexpected]
        # TE761 never says a build that succeeded raises.
        assert not any("build raises" in f.message for f in findings)


def _traced_outputs(layer: Any, feature_configs: Any) -> dict[str, tuple[int, ...]] | None:
    """The shape the layer returns for each feature, by its path, from TensorFlow tracing its
    call on dense ids of each feature's per-replica input shape (TensorFlow's shape inference
    of the TPU embedding's own ops: nothing runs), the batch multiplied back by the replicas.
    None when the call refuses dense ids of that shape (TPUEmbedding's enqueue takes rank-2
    dense ids only with a last dimension of 1)."""
    specs = keras.tree.map_structure(
        lambda f: tf.TensorSpec(_per_replica(f.input_shape), tf.int32), feature_configs
    )
    try:
        traced = tf.function(layer.call).get_concrete_function(specs)
    except ValueError as error:
        if "should have last dimension as 1" in str(error):
            return None
        raise
    flat = keras.tree.flatten_with_path(traced.structured_outputs)
    return {
        ".".join(str(part) for part in path): (
            output.shape[0] * DEVICES,
            *output.shape[1:],
        )
        for path, output in flat
    }


def _ranks() -> dict[str, Any]:
    """Declared ranks above the input's that TPUEmbedding's build lets through."""
    from tests.keras_layers import feature, layer, table

    shapes = [([16, 1], [16, 1, 8]), ([16], [16, 1, 8]), ([16, 1], [16, 8]), ([16, 1], [16, 4])]
    features = [feature(f"f{i}", 0, 8, shapes=pair) for i, pair in enumerate(shapes)]
    return layer("embedding", [table("t", 64, 8, "adagrad")], features)


SHAPES = [*LAYERS, *(pytest.param(_ranks(), f, id=f"{f}-ranks") for f in CHIPS)]


@pytest.mark.parametrize(("data", "feature"), SHAPES)
def test_keras_output_dim_mismatch_is_the_shape_the_tpu_path_returns(
    data: dict[str, Any], feature: str, tmp_path: Path
) -> None:
    """TE761 on the TPU path: the features whose returned shape (traced) is not the declared
    one are exactly those tpuemb reports, on the saved file."""
    with tpu_strategy_standin(feature, DEVICES):
        built = _built(data, feature)
        if built is None:
            pytest.skip("keras-rs or TensorFlow refuses the layer")
        model, layer = built
        returned = _traced_outputs(layer, layer._feature_configs)
        path = tmp_path / "model.keras"
        model.save(path)
    if returned is None:
        pytest.skip("the call refuses dense ids of the declared input shape")
    declared = {
        ".".join(str(part) for part in key): tuple(f.output_shape)
        for key, f in keras.tree.flatten_with_path(layer._feature_configs)
    }
    names = {
        ".".join(str(part) for part in key): f.name
        for key, f in keras.tree.flatten_with_path(layer._feature_configs)
    }
    differ = {names[key] for key in declared if returned[key] != declared[key]}
    found = {f["message"].split("'")[1]: f for f in _check(path, feature) if f["rule"] == "TE761"}
    # Every shape the layer returns otherwise than declared is reported ...
    assert differ <= set(found), (returned, declared)
    # ... and what else is reported is a declared batch or rank the input does not give, which
    # the TPU path returns as declared (the TPU embedding sizes the activations from it), as the
    # message says -- unless TPUEmbedding's build raises for it, which the message says instead;
    # on CPU the layer returns the input's.
    library = {"V2": "TPUEmbeddingV2", "V1": "TPUEmbedding"}[feature]
    for name in set(found) - differ:
        key = next(key for key, named in names.items() if named == name)
        assert returned[key][-1] == declared[key][-1], (name, returned[key], declared[key])
        message = found[name]["message"]
        assert f"{library} sizes the activations from the declared shape" in message, message
    for name in differ & set(found):  # a width: the message says what the layer returns
        assert "sizes the activations" not in found[name]["message"]
