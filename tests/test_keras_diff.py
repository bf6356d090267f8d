"""`tpuemb diff` of two Keras-RS models, without Keras: what loading the old model's saved
weights into the new one does (frontends/keras/compat/weights;
tests/test_keras_diff_oracle.py holds the default-device verdicts against Keras's own
load_weights)."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

CLEAN = Path(__file__).parent / "data" / "keras-core" / "clean.keras"
Edit = Callable[[dict[str, Any]], None]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _layer(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        if value.get("class_name") == "DistributedEmbedding":
            config: dict[str, Any] = value["config"]
            return config
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            found = _layer(item)
            if found is not None:
                return found
    return None


def model(folder: Path, edit: Edit | None = None) -> str:
    """A model folder's config.json: clean.keras's, its DistributedEmbedding's config edited."""
    config = json.loads(zipfile.ZipFile(CLEAN).read("config.json"))
    layer = _layer(config)
    assert layer is not None
    if edit is not None:
        edit(layer)
        _inputs_follow(config)
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps(config))
    return str(path)


def _mirror(features: Any, leaf: Callable[[dict[str, Any]], Any]) -> Any:
    if isinstance(features, dict) and isinstance(features.get("name"), str):
        return leaf(features)
    if isinstance(features, dict):
        return {key: _mirror(value, leaf) for key, value in features.items()}
    return [_mirror(value, leaf) for value in features]


def _inputs_follow(value: Any) -> None:
    """The inputs the model saved the layer with, remade in the structure of its features as
    edited (a model whose inputs differ from its features does not load: TE007)."""
    if isinstance(value, dict):
        if value.get("class_name") == "DistributedEmbedding":
            features = value["config"]["feature_configs"]
            value["build_config"]["input_shape"] = _mirror(features, lambda f: f["input_shape"])
            tensor = {"class_name": "__keras_tensor__", "config": {"shape": [16, 1]}}
            for node in value["inbound_nodes"]:
                node["args"][0] = _mirror(features, lambda f: tensor)
            return
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            _inputs_follow(item)


def _table(which: str, **values: Any) -> Edit:
    def edit(layer: dict[str, Any]) -> None:
        [table] = [t for t in layer["tables"] if t["name"] == which]
        table.update(values)

    return edit


def test_unchanged_models_have_no_changes(tmp_path: Path) -> None:
    old, new = model(tmp_path / "old"), model(tmp_path / "new")
    for tpu in ("v4-8", "v5p-8"):
        result = invoke("diff", "--tpu", tpu, old, new)
        assert (result.exit_code, result.stdout, result.stderr) == (
            0,
            "No changes (1 file pair compared).\n",
            "",
        )


def test_default_device_a_grown_table_fails_the_load(tmp_path: Path) -> None:
    old = model(tmp_path / "old")
    new = model(tmp_path / "new", _table("items", vocabulary_size=600))
    result = invoke("diff", "--tpu", "v4-8", "--format", "json", old, new)
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)["changes"]
    assert finding["kind"] == "restore-error"
    assert finding["message"] == (
        "layer clean/distributed_embedding: table 'items' (default device) is 600 x 8, and its "
        "place 1 holds the saved table 'items', 500 x 8: Keras's variable.assign raises "
        "ValueError and the load fails"
    )


def test_default_device_tables_that_trade_places_trade_rows(tmp_path: Path) -> None:
    # users (first used by `friend`) and tags trade places when their features trade tables:
    # of one shape, they load each other's rows.
    def same_shapes(layer: dict[str, Any]) -> None:
        for table in layer["tables"]:
            table.update(vocabulary_size=64, embedding_dim=4)
        for feature in layer["feature_configs"].values():
            feature["output_shape"] = [32, 4]

    def swapped(layer: dict[str, Any]) -> None:
        same_shapes(layer)
        features = layer["feature_configs"]
        features["friend"]["table"], features["tag"]["table"] = 2, 0
        features["user"]["table"] = 2

    old = model(tmp_path / "old", same_shapes)
    new = model(tmp_path / "new", swapped)
    result = invoke("diff", "--tpu", "v4-8", "--format", "json", "--fail-on", "none", old, new)
    assert result.exit_code == 0
    kinds = {(f["kind"], f["table"]) for f in json.loads(result.stdout)["changes"]}
    assert kinds == {("silent-reinit", "tags"), ("silent-reinit", "users")}


def test_default_device_a_table_removed_last_is_orphaned(tmp_path: Path) -> None:
    def without_tags(layer: dict[str, Any]) -> None:
        del layer["feature_configs"]["tag"]
        layer["tables"].pop(2)

    old = model(tmp_path / "old")
    new = model(tmp_path / "new", without_tags)
    result = invoke("diff", "--tpu", "v4-8", "--format", "json", "--fail-on", "none", old, new)
    [finding] = json.loads(result.stdout)["changes"]
    assert (finding["kind"], finding["file"]) == ("orphaned-state", old)


def test_sparsecore_stacks_by_their_shape_and_slots(tmp_path: Path) -> None:
    old = model(tmp_path / "old")
    cases = {
        # 1,010 rows pad to 1,024 as 1,000 did, at the same places: nothing changes.
        "padded alike": (_table("users", vocabulary_size=1010), set()),
        # A renamed table keeps its place: Keras loads by place, not by the stack's name.
        "renamed": (_table("tags", name="labels"), set()),
        "grown": (_table("users", vocabulary_size=3000), {"restore-error"}),
        # SGD has no slot: the layer has one variable fewer than it saved.
        "fewer slots": (
            _table("items", optimizer={"class_name": "SGD", "config": {"learning_rate": 0.1}}),
            {"restore-error"},
        ),
    }
    for name, (edit, expected) in cases.items():
        new = model(tmp_path / name, edit)
        result = invoke("diff", "--tpu", "v5p-8", "--format", "json", "--fail-on", "none", old, new)
        assert result.exit_code == 0, (name, result.output)
        found = {f["kind"] for f in json.loads(result.stdout)["changes"]}
        assert found == expected, name


def test_what_is_not_compared_fails_the_run(tmp_path: Path) -> None:
    # A chip whose TPU embedding feature is not known, with the TensorFlow backend: whether the
    # layer's tables are saved cannot be told. A skipped pair exited 0, which a CI gate took for
    # "compatible": it is exit 2.
    old, new = model(tmp_path / "old"), model(tmp_path / "new")
    for tpu in ("v5litepod-8", "v5e"):
        result = invoke("diff", "--tpu", tpu, "--keras-backend", "tensorflow", old, new)
        assert result.exit_code == 2, tpu
        assert "1 file pair could not be compared" in result.stdout
        assert f"{new}: layer clean/distributed_embedding: which TPU embedding feature" in (
            result.stderr
        )
    # Without --tpu the saved weights cannot be told: a missing option, not a pass (a CI job
    # that forgot it exited 0 having compared nothing).
    for backend in ("jax", "tensorflow"):  # the TensorFlow one assumed a SparseCore chip
        result = invoke("diff", "--keras-backend", backend, old, new)
        assert result.exit_code == 2, backend
        assert "no --tpu" in result.stderr and "pass --tpu" in result.stderr


def _tf_diff(old: str, new: str, tpu: str = "v5p-8", *more: str) -> tuple[int, list[Any]]:
    result = invoke(
        "diff", "--tpu", tpu, "--keras-backend", "tensorflow", "--format", "json", *more, old, new
    )
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)["changes"]


def test_tensorflow_backend_tables_are_in_neither_file(tmp_path: Path) -> None:
    # keras-rs's TensorFlow layer keeps its TPU embedding tables in a TPUEmbeddingV2 (v5p) or
    # TPUEmbedding (v4) that Keras's saving never walks: unsaved-state, a warning outside the
    # default --fail-on, on every comparison, changed or not (tests/test_tf_keras_saving_oracle.py
    # checks it against keras-rs and TensorFlow).
    old, new = model(tmp_path / "old"), model(tmp_path / "new")
    for tpu, library in (("v5p-8", "TPUEmbeddingV2"), ("v4-8", "TPUEmbedding")):
        code, changes = _tf_diff(old, new, tpu)
        assert code == 0
        [change] = changes
        assert change["kind"] == "unsaved-state"
        assert change["message"] == (
            f"layer clean/distributed_embedding: tables 'users', 'items', 'tags' ({library}) are "
            "in neither file: keras-rs 0.4.0's TensorFlow layer keeps them outside Keras's "
            "saving, so loading the saved model leaves them at their initializers, changed or "
            "not"
        )
        assert change["file"] == new
    code, changes = _tf_diff(old, new, "v5p-8", "--fail-on", "unsaved-state")
    assert code == 1
    # A grown SparseCore table changes nothing Keras loads: the layer saved no value of it.
    grown = model(tmp_path / "grown", _table("items", vocabulary_size=600))
    code, changes = _tf_diff(old, grown)
    assert (code, [c["kind"] for c in changes]) == (0, ["unsaved-state"])


def test_tensorflow_backend_gradient_trap_counts_as_the_layers_own_variable(
    tmp_path: Path,
) -> None:
    # A layer with a table on the SparseCores has one own variable (its gradient trap); one
    # with every table on the default device has none: Keras's load fails across the two.
    def on_default_device(layer: dict[str, Any]) -> None:
        for table in layer["tables"]:
            table["placement"] = "default_device"

    old = model(tmp_path / "old")
    new = model(tmp_path / "new", on_default_device)
    _, changes = _tf_diff(old, new, "v5p-8", "--fail-on", "none")
    assert "unsaved-state" not in {c["kind"] for c in changes}
    [own] = [c for c in changes if "own variables" in c["message"]]
    assert (own["kind"], own["file"]) == ("restore-error", old)
    assert own["message"].startswith(
        "layer clean/distributed_embedding: the layer's own variables (the TensorFlow layer's "
        "gradient trap saved, none now) were 1 and are 0"
    )


def test_a_keras_model_against_a_config_cannot_be_compared(tmp_path: Path) -> None:
    config = tmp_path / "c.pbtxt"
    config.write_text('table_descriptor { name: "t" vocabulary_size: 8 dimension: 4 }\n')
    result = invoke("diff", "--tpu", "v4-8", model(tmp_path / "old"), str(config))
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "config.json is a Keras-RS model, "
        f"{config} is a TPUEmbeddingConfiguration (TensorFlow's TPUEmbedding); their "
        "checkpoints have nothing in common to compare\n"
    )


def test_a_feature_renamed_past_another_swaps_two_tables_on_either_path() -> None:
    # Saved by keras-rs on CPU (tests/data/keras-diff/make_diff.py): `movie` renamed `title`.
    data = Path(__file__).parent / "data" / "keras-diff"
    old, new = str(data / "old.keras"), str(data / "new.keras")
    found = {}
    for tpu in ("v4-8", "v5p-8"):  # the default device; SparseCores
        result = invoke("diff", "--tpu", tpu, "--format", "json", old, new)
        assert result.exit_code == 1
        found[tpu] = sorted((c["kind"], c["table"]) for c in json.loads(result.stdout)["changes"])
    assert found["v4-8"] == [("silent-reinit", "movies"), ("silent-reinit", "shows")]
    # One stack of both tables (keras-rs stacks them), its tables in the features' order: the
    # stack's table and its Adagrad accumulator load the other order's rows.
    assert found["v5p-8"] == [("silent-reinit", "shows")] * 2


def _whole(folder: Path, edit: Callable[[dict[str, Any]], None]) -> str:
    """A model folder's config.json: clean.keras's, the whole model's configuration edited."""
    config = json.loads(zipfile.ZipFile(CLEAN).read("config.json"))
    edit(config)
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps(config))
    return str(path)


def _wrapped(layer: dict[str, Any], class_name: str = "Functional") -> dict[str, Any]:
    return {
        "module": "keras.src.models.functional",
        "class_name": class_name,
        "config": {"name": "tower", "layers": [layer]},
        "registered_name": None,
    }


def _nest_the_layer(class_name: str = "Functional") -> Callable[[dict[str, Any]], None]:
    """The DistributedEmbedding moved into a model (``class_name``) inside the model."""

    def edit(config: dict[str, Any]) -> None:
        layers = config["config"]["layers"]
        [index] = [i for i, item in enumerate(layers) if item["class_name"] == LAYER]
        layers[index] = _wrapped(layers[index], class_name)

    return edit


LAYER = "DistributedEmbedding"


def test_a_layer_moved_into_a_nested_model_is_at_another_place(tmp_path: Path) -> None:
    # Keras pairs a layer with the saved weights at its place among its models' layers
    # (layers/distributed_embedding, then layers/functional/layers/distributed_embedding):
    # loading the flat model's weights into the nested one fails, and the other way round the
    # saved tables are ignored and the layer's own fail. diff said "No changes" (layers paired
    # by their order among the DistributedEmbedding layers).
    flat = model(tmp_path / "flat")
    nested = _whole(tmp_path / "nested", _nest_the_layer())
    for old, new in ((flat, nested), (nested, flat)):
        result = invoke("diff", "--tpu", "v4-8", "--format", "json", old, new)
        assert result.exit_code == 1, result.output
        changes = json.loads(result.stdout)["changes"]
        assert sorted((c["kind"], c["file"]) for c in changes) == [
            ("orphaned-state", old),
            ("restore-error", new),
        ]
    [error] = [c for c in changes if c["kind"] == "restore-error"]
    assert error["message"].startswith(
        "layer clean/distributed_embedding: Keras loads its weights from "
        "layers/distributed_embedding in the saved model's weights file, which holds no "
        "DistributedEmbedding layer there (the saved model's are at "
        "layers/functional/layers/distributed_embedding)"
    )


def test_two_layers_that_trade_places_load_each_others_weights(tmp_path: Path) -> None:
    # Two layers, one in a nested model; the new model nests the other one. Keras loads each
    # place from the same place: the layers' names and their order do not count.
    def two_layers(nest_first: bool) -> Callable[[dict[str, Any]], None]:
        def edit(config: dict[str, Any]) -> None:
            layers = config["config"]["layers"]
            [index] = [i for i, item in enumerate(layers) if item["class_name"] == LAYER]
            first = layers[index]
            second = json.loads(json.dumps(first))
            second["config"]["name"] = "other"
            for table in second["config"]["tables"]:
                table["vocabulary_size"] += 1
            if nest_first:
                layers[index : index + 1] = [_wrapped(first), second]
            else:
                layers[index : index + 1] = [first, _wrapped(second)]

        return edit

    old = _whole(tmp_path / "old", two_layers(nest_first=False))
    new = _whole(tmp_path / "new", two_layers(nest_first=True))
    result = invoke("diff", "--tpu", "v4-8", "--format", "json", "--fail-on", "none", old, new)
    assert result.exit_code == 0, result.output
    changes = json.loads(result.stdout)["changes"]
    # Each place's three tables are one row more or less than the saved ones there.
    assert {c["kind"] for c in changes} == {"restore-error"}
    assert len(changes) == 6


def _features(features: dict[str, Any]) -> Edit:
    """Two tables of one shape (users, items) and ``features``: a nested dict of table indexes."""

    def feature(name: str, table: int) -> dict[str, Any]:
        return {"name": name, "table": table, "input_shape": [32, 1], "output_shape": [32, 8]}

    def nested(value: Any) -> Any:
        return {
            key: nested(item) if isinstance(item, dict) else feature(key, item)
            for key, item in value.items()
        }

    def edit(layer: dict[str, Any]) -> None:
        del layer["tables"][2:]
        for table in layer["tables"]:
            table.update(vocabulary_size=100, embedding_dim=8)
        layer["feature_configs"] = nested(features)

    return edit


def test_default_device_places_follow_the_nested_order_not_the_joined_paths(
    tmp_path: Path,
) -> None:
    # keras.tree flattens each level's keys sorted: {"a": {"z": ...}} comes before "a-x",
    # whose joined path "a-x" sorts before "a.z". Keras-RS's EmbedReduce dict is in that order.
    old = model(tmp_path / "old", _features({"fa": 0, "fb": 1}))  # users, then items
    cases = {
        # Keras: items (a.z) then users (a-x): each loads the other's rows.
        "swapped": (
            {"a": {"z": 1}, "a-x": 0},
            {("silent-reinit", "items"), ("silent-reinit", "users")},
        ),
        # Keras: users (a.z) then items (a-x), as saved: nothing changes.
        "kept": ({"a": {"z": 0}, "a-x": 1}, set()),
        # "a_x" sorts after "a" and after "a.x": the same order both ways.
        "underscore": ({"a": {"x": 0}, "a_x": 1}, set()),
        # A key with a dot: "a" / "z" (users), then "a.b" (items), whose joined path sorts first.
        "dotted key": ({"a": {"z": 0}, "a.b": 1}, set()),
    }
    for name, (features, expected) in cases.items():
        new = model(tmp_path / name, _features(features))
        result = invoke("diff", "--tpu", "v4-8", "--format", "json", "--fail-on", "none", old, new)
        assert result.exit_code == 0, (name, result.output)
        found = {(c["kind"], c["table"]) for c in json.loads(result.stdout)["changes"]}
        assert found == expected, name


def test_one_joined_path_twice_is_refused_and_compared_once_te772_is_ignored(
    tmp_path: Path,
) -> None:
    """``{"a.b": ..., "a": {"b": ...}}``: the layer keeps one feature (TE772, an error), so diff
    refuses the model as it does any Keras model with errors; with TE772 ignored it says what
    loading does: Keras-RS's dict keeps the first place (the nested feature's) and the later
    feature's table (users): items is made by none, its rows orphaned."""
    old = model(tmp_path / "old", _features({"fa": 0, "fb": 1}))
    new = model(tmp_path / "new", _features({"a.b": 0, "a": {"b": 1}}))
    result = invoke("diff", "--tpu", "v4-8", "--format", "json", "--fail-on", "none", old, new)
    assert result.exit_code == 2, result.output
    assert "cannot compare: it has errors" in result.output
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["TE772"]
    (tmp_path / ".tpuemb.toml").write_text('ignore = ["TE772"]\n')
    result = invoke("diff", "--tpu", "v4-8", "--format", "json", "--fail-on", "none", old, new)
    assert result.exit_code == 0, result.output
    found = {(c["kind"], c["table"]) for c in json.loads(result.stdout)["changes"]}
    assert found == {("orphaned-state", "items")}


def test_a_layer_whose_place_is_not_known_is_not_compared(tmp_path: Path) -> None:
    # Inside a layer that is no Functional or Sequential model, Keras saves the layer under an
    # attribute's name, which config.json does not hold: exit 2, naming the file it is in.
    old = _whole(tmp_path / "old", _nest_the_layer("Tower"))
    new = model(tmp_path / "new")
    result = invoke("diff", "--tpu", "v4-8", old, new)
    assert result.exit_code == 2, result.output
    assert (
        f"tpuemb: error: {old}: layer clean/tower/distributed_embedding: where Keras saves its "
        "weights is not known"
    ) in result.stderr
    assert new not in result.stderr


def test_a_layer_not_compared_is_named_with_its_own_file(tmp_path: Path) -> None:
    # Each side's layer named under its own file (the old file's layer was named under the
    # new file).
    old = model(tmp_path / "old")
    new = _whole(tmp_path / "new", _nest_the_layer())
    result = invoke("diff", "--tpu", "v5e", "--keras-backend", "tensorflow", old, new)
    assert result.exit_code == 2
    assert f"{new}: layer clean/tower/distributed_embedding: which TPU embedding feature" in (
        result.stderr
    )
    assert "clean/distributed_embedding" not in result.stderr


def test_what_is_placed_in_the_old_file_names_the_old_layer(tmp_path: Path) -> None:
    # The layer renamed (Keras pairs it by its place all the same) and its last table removed:
    # the saved table nothing loads is placed in the old file, under the old layer's name.
    def renamed(layer: dict[str, Any]) -> None:
        layer["name"] = "embeddings_v1"

    def without_tags(layer: dict[str, Any]) -> None:
        del layer["feature_configs"]["tag"]
        layer["tables"].pop(2)

    old = model(tmp_path / "old", renamed)
    new = model(tmp_path / "new", without_tags)
    result = invoke("diff", "--tpu", "v4-8", "--format", "json", "--fail-on", "none", old, new)
    [finding] = json.loads(result.stdout)["changes"]
    assert (finding["kind"], finding["file"]) == ("orphaned-state", old)
    assert finding["message"].startswith("layer clean/embeddings_v1: table 'tags'")


def test_a_table_that_misses_its_first_place_tries_its_later_ones() -> None:
    # Keras 3.15's container load does not mark a table that failed as loaded: the next place
    # of the same table (a later feature of it) tries again, and a success there clears the
    # failure (checked against Keras by tests/test_keras_diff_oracle.py's "first table removed,
    # the next one shared" cases).
    from tpuemb_cli.frontends.keras.compat.weights import Entry, _default_changes

    def entry(name: str, shape: tuple[int, int] | None, table: int) -> Entry:
        path = ("layers", 0, "tables", table)
        return Entry(name, shape, (name, *shape) if shape else (), path, (name,) if shape else ())

    old = [entry("a", (100, 8), 0), entry("b", (50, 8), 1), entry("b", None, 1)]
    wheres, names = ("layer old", "layer new"), ({"a", "b"}, {"b"})
    new = [entry("b", (50, 8), 0), entry("b", None, 0)]
    changes = _default_changes(old, new, wheres, names)
    assert [(c.kind, c.table) for c in changes] == [("orphaned-state", "a")]
    grown = [entry("b", (60, 8), 0), entry("b", None, 0)]
    changes = _default_changes(old, grown, wheres, names)
    assert [(c.kind, c.table) for c in changes] == [("restore-error", "b")]
    assert "nor does any later place of the table" in changes[0].message


def test_a_tpu_table_moved_to_the_default_device_is_no_rename(tmp_path: Path) -> None:
    # With the TensorFlow backend the old model saved no value of `items` (it was on the
    # SparseCores); moved to the default device, it takes the place that held `users`, of the
    # same shape: Keras loads users' rows into it. `items` was a table of the old model, so this
    # is no rename (the reviewer's case, checked against Keras by
    # tests/test_tf_keras_saving_oracle.py).
    def placed(default: str) -> Edit:
        def edit(layer: dict[str, Any]) -> None:
            for table in layer["tables"]:
                table.update(vocabulary_size=64, embedding_dim=4)
                table["placement"] = "default_device" if table["name"] == default else "auto"
            for feature in layer["feature_configs"].values():
                feature["output_shape"] = [32, 4]

        return edit

    old = model(tmp_path / "old", placed("users"))
    new = model(tmp_path / "new", placed("items"))
    code, changes = _tf_diff(old, new)
    assert code == 1
    [reinit] = [c for c in changes if c["kind"] == "silent-reinit"]
    assert reinit["table"] == "items"
    assert "loads the rows saved for table 'users'" in reinit["message"]


def test_a_keras_model_against_a_checkpoint_is_refused_not_a_crash(tmp_path: Path) -> None:
    # It reached the two-model comparison with one side and crashed (TE010, exit 2).
    ckpt = Path(__file__).parent / "data" / "tf-made" / "ranker" / "ckpt" / "ckpt-1.index"
    for backend in ("jax", "tensorflow"):
        result = invoke(
            "diff", "--tpu", "v5p-8", "--keras-backend", backend, "--against-checkpoint",
            str(ckpt), str(CLEAN),
        )  # fmt: skip
        assert result.exit_code == 2
        assert "TE010" not in result.output
        assert (
            "a Keras-RS model, whose saved weights compare with another saved model's "
            "(tpuemb diff OLD.keras NEW.keras)" in result.stderr
        ), result.stderr


def test_the_acknowledgement_names_the_archive_as_configuration_does(tmp_path: Path) -> None:
    # A [[suppress]] entry for `x.keras!config.json` applies to nothing; `x.keras` does.
    _, changes = _tf_diff(str(CLEAN), str(CLEAN))
    [change] = changes
    assert f"[[suppress]] entry for `{CLEAN}`," in change["help"]
    (tmp_path / "tpuemb.toml").write_text(
        f'[[suppress]]\nfile = "{CLEAN}"\nrules = ["unsaved-state"]\nreason = "saved apart"\n'
    )
    result = invoke(
        "diff", "--config", str(tmp_path / "tpuemb.toml"), "--tpu", "v5p-8", "--keras-backend",
        "tensorflow", "--fail-on", "unsaved-state", str(CLEAN), str(CLEAN),
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_a_rename_beside_another_layers_table_of_that_name_is_a_rename() -> None:
    # e1: x -> a on the default device; e2 keeps a TPU table `a` on both sides. Keras gives
    # e1/a e1/x's rows (checked by the review with keras-rs under the stand-in): only e2's
    # unsaved-state, no silent-reinit (a model-wide name check called it one).
    data = Path(__file__).parent / "data" / "keras-diff" / "rename-beside-tpu-table"
    old, new = str(data / "old" / "config.json"), str(data / "new" / "config.json")
    for tpu in ("v5p-8", "v4-8", "v5p"):  # a chip named alone too: the count changes nothing
        code, changes = _tf_diff(old, new, tpu)
        assert (code, [c["kind"] for c in changes]) == (0, ["unsaved-state"]), tpu
