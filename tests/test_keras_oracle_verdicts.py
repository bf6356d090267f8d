"""The verdicts of tests/rules/test_keras_duplicate_table_name.py, test_keras_table_stacking_
stacks_nothing.py and TE768/TE769 against keras-rs itself (`make test-keras`; skipped where
keras-rs is not installed): layers built by keras-rs 0.4.0 on CPU, saved, and
tpuemb's verdict on the file compared with what the library does.

- Two tables of one name on the SparseCores (the simulated SparseCore of tests/keras_probe.py):
  the layer builds one table variable, and tpuemb's TE771 names the other; on the default device
  (a CPU) the layer keeps both, and tpuemb says nothing.
- A `table_stacking` the JAX layer ignores (an object, a number, a boolean, an empty list): the
  layer builds, one stack a table, which tpuemb's stacks for the saved file equal, with TE770.
- Placement `"auto"` on each chip: `_has_sparsecore()` itself decides, from the device kind of a
  fake TPU device list (`jax.devices("tpu")`), which tables the layer puts on the SparseCores;
  tpuemb's explain places the same tables there for that chip, TE768 names exactly the "auto"
  tables the layer leaves on the TensorCores of a chip that has SparseCores (TPU7x), and TE769
  exactly the default-device tables with an optimizer of their own.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
pytest.importorskip("keras_rs")
pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

import jax
import keras
from click.testing import CliRunner

from tests import keras_probe
from tests.keras_input_cases import CASES as INPUT_CASES
from tests.keras_layers import case, feature, layer, optimizer, table
from tpuemb_cli.cli import main
from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec
from tpuemb_cli.keras import specs_from_file


def _check(path: Path, *options: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["check", "--format", "json", *options, str(path)])
    assert result.exit_code in (0, 1), result.output
    found: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
    return found


def _tables_flagged(found: list[dict[str, Any]], rule: str) -> set[int]:
    """The table indexes (layer 0) a rule's findings are on."""
    flagged = set()
    for finding in found:
        if finding["name"] == rule:
            field = finding["field"]
            assert field.startswith("layers[0].tables["), finding
            flagged.add(int(field.split("tables[")[1].split("]")[0]))
    return flagged


def _saved(data: dict[str, Any], sparsecore: bool) -> tuple[Path, Any]:
    folder = Path(tempfile.mkdtemp(prefix="keras-oracle-verdicts-"))
    path = folder / f"{data['name']}.keras"
    (made,) = keras_probe.save(case(data["name"], data, sparsecore=sparsecore), path)
    return path, made


def _our_stacks(path: Path) -> dict[str, list[str]]:
    ((_, spec),) = specs_from_file(
        path, global_device_count=4, num_sc_per_device=4, accelerator="v5p"
    )
    return {
        stack.stack_name: sorted(t.table_name for t in stack.table_specs)
        for stack in compile_jax_spec(spec).stacked_table_specs
    }


# --- R1: two tables of one name ---


def _one_name(name: str, placement: str) -> dict[str, Any]:
    sgd = optimizer("SGD", learning_rate=0.1)
    return layer(
        name,
        [
            table("items", 64, 8, sgd, placement=placement),
            table("items", 200, 8, optimizer("Adagrad", learning_rate=0.1), placement=placement),
            table("tags", 8, 8, sgd, placement=placement),
        ],
        # Named apart (a feature named after its table would make two "items_ids"), in the
        # tables' order once sorted.
        [feature("f0", 0, 8), feature("f1", 1, 8), feature("f2", 2, 8)],
        table_stacking=None,  # a variable a table, to see which one is built
    )


def test_two_tables_of_one_name_on_sparsecores_build_one_and_te771_names_the_other() -> None:
    path, made = _saved(_one_name("one_name_sc", "sparsecore"), sparsecore=True)
    # The library: one table variable "items", of the first table's 64 rows (the second's 200
    # would pad to 224), and no Adagrad slot.
    variables = {v.path.split("/")[-1]: tuple(v.shape) for v in made.weights}
    print("variables:", variables)
    assert variables["var:items:table"][0] == 64
    assert not any("accumulator" in name for name in variables)
    assert keras_probe.live_stacks(made) == {"items": ["items"], "tags": ["tags"]}
    # tpuemb: the same stacks for the saved file, and TE771 on the second table only.
    assert _our_stacks(path) == keras_probe.live_stacks(made)
    found = _check(path, "--tpu", "v5p-8")
    assert _tables_flagged(found, "keras-duplicate-table-name") == {1}
    assert [f["name"] for f in found] == ["keras-duplicate-table-name"]


def test_the_merged_tables_optimizer_is_never_converted() -> None:
    """The second table of a name is never converted: an optimizer the conversion refuses
    there (Adam's amsgrad) raises nothing, and tpuemb reports TE771 only, no TE762."""
    data = _one_name("one_name_refused", "sparsecore")
    data["tables"][1]["optimizer"] = optimizer("Adam", learning_rate=0.1, amsgrad=True)
    specs = keras_probe.converted(keras_probe.build_layer(data, sparsecore=True))
    assert sorted({s.table_spec.name for s in keras.tree.flatten(specs)}) == ["items", "tags"]
    path, _ = _saved(data, sparsecore=True)
    found = _check(path, "--tpu", "v5p-8")
    assert [f["name"] for f in found] == ["keras-duplicate-table-name"]


def test_two_tables_of_one_name_on_the_default_device_stay_apart() -> None:
    data = _one_name("one_name_cpu", "default_device")
    path, made = _saved(data, sparsecore=False)
    shapes = sorted(tuple(v.shape) for v in made.weights)
    print("weights:", shapes)
    assert shapes == [(8, 8), (64, 8), (200, 8)]
    found = _check(path, "--tpu", "v5p-8")
    assert not _tables_flagged(found, "keras-duplicate-table-name")


# --- R4: table_stacking the JAX layer ignores ---


@pytest.mark.parametrize(
    "value", [{"group": ["a", "b"]}, 2, True, []], ids=["object", "number", "bool", "empty"]
)
def test_a_stacking_the_layer_ignores_builds_unstacked_and_te770_says_so(value: Any) -> None:
    sgd = optimizer("SGD", learning_rate=0.1)
    data = layer(
        f"ignored_{type(value).__name__}",
        [table("a", 16, 8, sgd, placement="sparsecore"), table("b", 24, 8, sgd)],
        table_stacking=value,
    )
    path, made = _saved(data, sparsecore=True)
    live = keras_probe.live_stacks(made)
    assert live == {"a": ["a"], "b": ["b"]}, live
    assert made.get_config()["table_stacking"] == value
    assert _our_stacks(path) == live
    found = _check(path, "--tpu", "v5p-8")
    assert [(f["name"], f["severity"]) for f in found] == [
        ("keras-table-stacking-stacks-nothing", "warning")
    ]


# --- R5: "auto" decided by the device kind ---

# Each chip tpuemb knows with the device_kind its JAX devices report.
DEVICE_KINDS = {
    "v5p": "TPU v5",
    "v6e": "TPU v6 lite",
    "tpu7x": "TPU7x",
    "v5e": "TPU v5 lite",
    "v4": "TPU v4",
}


class _FakeTpu:
    def __init__(self, kind: str) -> None:
        self.device_kind = kind
        self.platform = "tpu"


def _placed_on_sparsecore(data: dict[str, Any], kind: str, monkeypatch: Any) -> set[int]:
    """The table indexes (in get_config's order) of the features the layer puts on
    "sparsecore" when `jax.devices("tpu")` reports devices of ``kind``: keras-rs's own
    `_has_sparsecore` and `_init_feature_configs_structures` decide; the layer is constructed
    (which is where placement is resolved), not built."""
    real = jax.devices

    def devices(backend: Any = None) -> Any:
        if backend == "tpu":
            return [_FakeTpu(kind)] * 4
        return real(backend)

    with monkeypatch.context() as patch:
        patch.setattr(jax, "devices", devices)
        made = keras_probe.build_layer(data)
        assert made._has_sparsecore() == (kind in ("TPU v5", "TPU v6 lite"))
    tables: list[Any] = []
    for f in keras.tree.flatten(made._feature_configs):
        if not any(f.table is t for t in tables):
            tables.append(f.table)
    on = made._placement_to_path_to_feature_config.get("sparsecore", {})
    return {i for i, t in enumerate(tables) if any(f.table is t for f in on.values())}


@pytest.mark.parametrize("chip", sorted(DEVICE_KINDS))
def test_auto_placement_follows_the_device_kind(chip: str, monkeypatch: Any) -> None:
    data = layer(
        f"auto_on_{chip}",
        [
            table("users", 32, 8, optimizer("Adagrad", learning_rate=0.1)),
            table("items", 32, 8),  # the default optimizer: TE769 has nothing to say
            table("tags", 16, 8, optimizer("SGD", learning_rate=0.1), placement="default_device"),
        ],
        # Sorted as the tables are, so that get_config keeps their order.
        [feature("f0_user", 0, 8), feature("f1_item", 1, 8), feature("f2_tag", 2, 8)],
    )
    path, _ = _saved(data, sparsecore=False)
    library = _placed_on_sparsecore(data, DEVICE_KINDS[chip], monkeypatch)
    print(chip, DEVICE_KINDS[chip], "-> tables on SparseCores:", sorted(library))
    explained = CliRunner().invoke(
        main, ["explain", "--memory", "--format", "json", "--tpu", chip, str(path)]
    )
    assert explained.exit_code == 0, explained.output
    tables = json.loads(explained.stdout)["layers"][0]["tables"]
    assert {i for i, t in enumerate(tables) if t["on_sparsecore"]} == library
    found = _check(path, "--tpu", chip)
    off = {0, 1, 2} - library
    has_sparsecores = chip in ("v5p", "v6e", "tpu7x")
    auto = {0, 1}
    expected_te768 = (off & auto) if has_sparsecores else set()
    assert _tables_flagged(found, "keras-auto-placement-on-tensorcores") == expected_te768
    # Table 1 keeps the default optimizer, table 2 has SGD and is always on the default device.
    assert _tables_flagged(found, "keras-ignored-table-optimizer") == off - {1}


# --- TE772: two features at one joined path ---


def _clashing_paths(placement: str, sparsecore: bool, folder: Path) -> tuple[Path, Any]:
    """``{"a.b": f1 (t1), "a": {"b": f2 (t2)}, "c": f3 (t3)}`` built by keras-rs in a model and
    saved; its layer."""
    import keras_rs

    sgd = keras.optimizers.SGD(learning_rate=0.1)
    tables = [
        keras_rs.layers.TableConfig(
            name=name, vocabulary_size=rows, embedding_dim=8, optimizer=sgd, placement=placement
        )
        for name, rows in (("t1", 64), ("t2", 128), ("t3", 32))
    ]

    def feature(name: str, t: int) -> Any:
        return keras_rs.layers.FeatureConfig(
            name=name, table=tables[t], input_shape=(16, 1), output_shape=(16, 8)
        )

    configs = {"a.b": feature("f1", 0), "a": {"b": feature("f2", 1)}, "c": feature("f3", 2)}
    with keras_probe.simulated_sparsecore() if sparsecore else contextlib.nullcontext():
        made = keras_rs.layers.DistributedEmbedding(configs, table_stacking=None)
        inputs = {
            "a.b": keras.Input(batch_shape=(16, 1), dtype="int32", name="ab"),
            "a": {"b": keras.Input(batch_shape=(16, 1), dtype="int32", name="a_b")},
            "c": keras.Input(batch_shape=(16, 1), dtype="int32", name="c"),
        }
        model = keras.Model(inputs, made(inputs))
        path = folder / f"clash_{placement}.keras"
        model.save(path)
    return path, made


@pytest.mark.parametrize("placement", ["default_device", "sparsecore"])
def test_two_features_at_one_path_build_one_and_te772_names_the_dropped(
    placement: str, tmp_path: Path
) -> None:
    path, made = _clashing_paths(placement, placement == "sparsecore", tmp_path)
    names = " ".join(v.path for v in made.weights)
    print("weights:", names)
    # The library: t2, looked up by the dropped feature only, is never built.
    assert "t1" in names and "t3" in names and "t2" not in names
    found = _check(path, "--tpu", "v5p-8")
    clashes = [f for f in found if f["name"] == "keras-duplicate-feature-path"]
    assert [f["field"] for f in clashes] == ["layers[0].features[0].key"], found
    assert "'f2'" in clashes[0]["message"].split(" and ")[0]
    if placement == "sparsecore":
        assert keras_probe.live_stacks(made) == {"t1": ["t1"], "t3": ["t3"]}
        assert _our_stacks(path) == keras_probe.live_stacks(made)


def test_two_features_at_one_path_share_one_output() -> None:
    """On the default device (a CPU, where the layer runs): both outputs are the later
    feature's (``a.b``) lookup of its own ids; the ids given at ``a`` / ``b`` are never read."""
    import numpy as np

    with tempfile.TemporaryDirectory() as folder:
        _, made = _clashing_paths("default_device", False, Path(folder))
    ids = {
        "a.b": np.zeros((16, 1), "int32"),
        "a": {"b": np.full((16, 1), 3, "int32")},
        "c": np.zeros((16, 1), "int32"),
    }
    out = made(ids)
    (t1,) = [v for v in made.weights if "t1" in v.path]
    rows = np.asarray(t1.value)
    assert np.allclose(out["a"]["b"], out["a.b"])
    assert np.allclose(np.asarray(out["a"]["b"])[0], rows[0])
    assert not np.allclose(np.asarray(out["a"]["b"])[0], rows[3])


# --- issue 36: what from_config refuses, combiner "max", a shared schedule, deep nesting ---


def _saved_config(name: str) -> tuple[Path, dict[str, Any]]:
    data = layer(
        name, [table("a", 64, 8, optimizer("SGD", learning_rate=0.1))], [feature("f", 0, 8)]
    )
    path, _ = _saved(data, sparsecore=False)
    import zipfile

    return path, json.loads(zipfile.ZipFile(path).read("config.json"))


def _embedding(config: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(
        item for item in config["config"]["layers"] if item["class_name"] == "DistributedEmbedding"
    )
    return found


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("feature_configs", None),
        ("feature_configs", "f"),
        ("name", 5),
        ("trainable", None),
        ("dtype", 5),
        ("unknown", 1),
        ("stray", None),
        ("stray", {"name": 5, "table": 0}),
    ],
)
def test_config_values_from_config_refuses_are_te007(key: str, value: Any) -> None:
    import keras_rs

    path, config = _saved_config(f"refused_{key}")
    if key == "stray":  # a value among the features that is no FeatureConfig
        _embedding(config)["config"]["feature_configs"]["g"] = value
    else:
        _embedding(config)["config"][key] = value
    with pytest.raises((TypeError, ValueError)) as raised:
        # A copy: from_config writes each feature's table object into the dicts it is given.
        keras_rs.layers.DistributedEmbedding.from_config(
            json.loads(json.dumps(_embedding(config)["config"]))
        )
    print("keras-rs:", type(raised.value).__name__, raised.value)
    folder = path.parent / f"folder_{key}_{type(value).__name__}"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    found = _check(folder / "config.json", "--tpu", "v5p-8")
    print("tpuemb:", [(f["rule"], f["field"], f["message"]) for f in found])
    # One finding a refused value (an object with a numeric `name` is one FeatureConfig
    # without its name), and nothing else.
    assert [f["rule"] for f in found] == ["TE007"]


def test_combiner_max_fails_on_cpu_and_passes_the_sparsecore_path_as_sum() -> None:
    import numpy as np
    from jax_tpu_embedding.sparsecore.lib.nn import embedding

    def made(combiner: str, placement: str) -> dict[str, Any]:
        return layer(
            f"combiner_{combiner}_{placement}",
            [
                table(
                    "t",
                    64,
                    8,
                    optimizer("SGD", learning_rate=0.1),
                    placement=placement,
                    combiner=combiner,
                )
            ],
            [feature("f", 0, 8, shapes=([16, 3], [16, 8]))],
        )

    # The default device (CPU): the layer refuses it.
    with pytest.raises(ValueError, match="Invalid `combiner`: 'max'"):
        keras_probe.build_layer(made("max", "default_device")).build({"f": (16, 3)})
    # The SparseCore path: conversion, stacking and input preprocessing take it and raise
    # nothing, and the gains it prepares for the 48 ids are those of "sum" (1 an id), not a
    # third ("mean" of 3 ids a sample). Counted among the slots that hold an id; the rest of the
    # buffer is padding or memory never written, which may hold an earlier run's gains: "mean"
    # runs first, and "max" leaves none of its thirds.
    ones = {}
    for combiner in ("mean", "max"):
        specs = keras_probe.converted(keras_probe.build_layer(made(combiner, "sparsecore"), True))
        keras_probe.stack(specs, "auto")
        ids = np.arange(48, dtype=np.int32).reshape(16, 3)
        out, _ = embedding.preprocess_sparse_dense_matmul_input(
            [ids], None, list(keras.tree.flatten(specs)), 4, 4, num_sc_per_device=4
        )
        _, embedding_ids, _, gains = (np.asarray(x["t"]) for x in out.sparse_dense_matmul_input)
        held = gains[embedding_ids != 2**31 - 1]
        ones[combiner] = (int((held == 1.0).sum()), int(np.isclose(held, 1 / 3).sum()))
    print("gains of 1 and of 1/3:", ones)
    assert ones["mean"][1] == 48
    assert ones["max"] == (48, 0)
    for placement in ("sparsecore", "default_device"):
        path, _ = _saved(made("mean", placement), sparsecore=placement == "sparsecore")
        import zipfile

        config = json.loads(zipfile.ZipFile(path).read("config.json"))
        _embedding(config)["config"]["tables"][0]["combiner"] = "max"
        (path.parent / "config.json").write_text(json.dumps(config))
        found = _check(path.parent / "config.json", "--tpu", "v5p-8")
        assert "TE775" in [f["rule"] for f in found]


def test_a_shared_schedule_stacks_live_and_splits_once_saved() -> None:
    import keras_rs
    from keras.src.saving import serialization_lib

    from tpuemb_cli.keras import lint_keras

    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=100, decay_rate=0.9)
    optimizers = [keras.optimizers.SGD(learning_rate=schedule) for _ in range(2)]
    with keras_probe.simulated_sparsecore():
        tables = [
            keras_rs.layers.TableConfig(
                name=n, vocabulary_size=64, embedding_dim=8, optimizer=o, placement="sparsecore"
            )
            for n, o in zip("ab", optimizers, strict=True)
        ]
        made = keras_rs.layers.DistributedEmbedding(
            {
                n: keras_rs.layers.FeatureConfig(
                    name=n, table=t, input_shape=(16, 1), output_shape=(16, 8)
                )
                for n, t in zip("fg", tables, strict=True)
            },
            name="shared",
        )
        inputs = {n: keras.Input(batch_shape=(16, 1), dtype="int32", name=n) for n in "fg"}
        model = keras.Model(inputs, made(inputs))
        path = Path(tempfile.mkdtemp(prefix="keras-oracle-shared-")) / "shared.keras"
        model.save(path)
        import zipfile

        config = json.loads(zipfile.ZipFile(path).read("config.json"))
        with serialization_lib.ObjectSharingScope():
            loaded = keras.saving.deserialize_keras_object(config)
        # The saved weights hold one stacked variable, which the loaded layer's two do not take.
        with pytest.raises(ValueError, match="expected 3 variables, but received 2") as raised:
            keras.saving.load_model(path)
        print("load_model:", str(raised.value).splitlines()[2])
    reloaded = next(x for x in loaded.layers if isinstance(x, keras_rs.layers.DistributedEmbedding))
    assert keras_probe.live_stacks(made) == {"a_b": ["a", "b"]}
    assert keras_probe.live_stacks(reloaded) == {"a": ["a"], "b": ["b"]}
    live = lint_keras(made, global_device_count=4, num_sc_per_device=4, accelerator="v5p")
    assert [(f.rule, f.field) for f in live if f.rule == "TE776"] == [
        ("TE776", "layers[0].tables[1].optimizer.schedule_shared_with")
    ]
    assert [f["field"] for f in _check(path, "--tpu", "v5p-8") if f["rule"] == "TE776"] == [
        "layers[0].tables[1].optimizer.schedule_shared_with"
    ]


def test_a_deep_table_stacking_is_the_syntax_finding() -> None:
    path, config = _saved_config("deep_stacking")
    deep: Any = "a"
    for _ in range(550):
        deep = [deep]
    _embedding(config)["config"]["table_stacking"] = deep
    (path.parent / "config.json").write_text(json.dumps(config))
    # Keras's own loading of it: print what it does (the verdict is tpuemb's limit, not Keras's).
    try:
        keras.saving.deserialize_keras_object(config)
        print("keras: loaded")
    except (RecursionError, ValueError, TypeError) as error:
        print("keras:", type(error).__name__, str(error)[:200])
    found = _check(path.parent / "config.json", "--tpu", "v5p-8")
    assert [(f["rule"], f["message"]) for f in found] == [
        ("TE001", "the JSON nests deeper than 202 levels")
    ]


@pytest.mark.parametrize("name", sorted(INPUT_CASES))
def test_feature_configs_against_the_saved_inputs_load_as_tpuemb_says(name: str) -> None:
    """A saved model whose layer's `feature_configs` differ from the inputs it was saved with
    (`build_config.input_shape`, `inbound_nodes`): `load_model` raises exactly where tpuemb
    reports TE007, and loads where it says nothing."""
    from tests.keras_input_cases import write_case

    folder = Path(tempfile.mkdtemp())
    path = write_case(name, folder)
    try:
        keras.saving.load_model(path)
        loads = True
    except ValueError as error:
        print("keras:", str(error)[:300])
        loads = False
    assert loads == INPUT_CASES[name][1]
    found = _check(path)
    assert bool(found) == (not loads), found
    assert all(f["rule"] == "TE007" for f in found)
