"""Keras models that passed `check` or crashed it (issue 36): a layer config nested deeper than
any document may be, config values of a JSON type `from_config` refuses, a combiner no path
reduces with, and a schedule shared in the saving script -- end to end through the CLI."""

from __future__ import annotations

import copy
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.keras_config_text import invoke, model_text, table

BASE = json.loads(model_text([table("a"), table("b")], {"f": 0, "g": 1}))
DEEP: Any = 0
for _ in range(550):
    DEEP = [DEEP]
TOO_DEEP = "the JSON nests deeper than 202 levels"


def _layer_config(model: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = model["config"]["layers"][0]["config"]
    return config


def _folder(tmp_path: Path, model: dict[str, Any], name: str = "m") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(model))
    return folder / "config.json"


def _archive(tmp_path: Path, model: dict[str, Any]) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("config.json", json.dumps(model))
        archive.writestr("metadata.json", '{"keras_version": "3.15.1"}')
    path = tmp_path / "m.keras"
    path.write_bytes(buffer.getvalue())
    return path


def _deep(where: str) -> dict[str, Any]:
    model: dict[str, Any] = copy.deepcopy(BASE)
    if where == "table_stacking":
        _layer_config(model)["table_stacking"] = DEEP
    elif where == "output_shape":
        _layer_config(model)["feature_configs"]["f"]["output_shape"] = DEEP
    elif where == "optimizer":
        _layer_config(model)["tables"][0]["optimizer"] = {
            "class_name": "Adam",
            "config": {"learning_rate": DEEP},
        }
    elif where == "layers":
        model["config"]["layers"].append(DEEP)
    else:  # the layer inside 80 nested Functional models
        for _ in range(80):
            model = {"module": "keras", "class_name": "Functional", "config": {"layers": [model]}}
    return model


def _column(text: str) -> int:
    """1-based: the bracket that opens level 203."""
    depth = 0
    for index, char in enumerate(text):  # no string of these models holds a bracket
        if char in "[{":
            depth += 1
            if depth == 203:
                return index + 1
        elif char in "]}":
            depth -= 1
    raise AssertionError("not that deep")


@pytest.mark.parametrize(
    "where", ["table_stacking", "output_shape", "optimizer", "layers", "nested models"]
)
def test_deep_nesting_is_the_syntax_finding_of_every_command(tmp_path: Path, where: str) -> None:
    model = _deep(where)
    path = _folder(tmp_path, model)
    at = f"{path}:1:{_column(json.dumps(model))}"
    result = invoke("check", "--tpu", "v5p-8", str(path))
    assert (result.exit_code, result.stdout) == (
        1,
        f"{at}: TE001 [error] {TOO_DEEP}\nFound 1 error in 1 file (1 file checked).\n",
    )
    archive = _archive(tmp_path, model)
    result = invoke("check", "--tpu", "v5p-8", str(archive))
    assert result.exit_code == 1
    assert f"{archive}!config.json:1:{_column(json.dumps(model))}: TE001 [error] {TOO_DEEP}\n" in (
        result.stdout
    )
    clean = _folder(tmp_path, BASE, "clean")
    result = invoke("diff", "--tpu", "v5p-8", str(clean), str(path))
    assert result.exit_code == 2
    assert f"{at}: TE001 [error] {TOO_DEEP}\n" in result.stdout
    assert "Traceback" not in result.output and "TE010" not in result.output
    for options in ((), ("--memory",)):
        result = invoke("explain", "--tpu", "v5p-8", *options, str(archive))
        assert (result.exit_code, result.stdout) == (1, "")
        assert (
            result.stderr == f"tpuemb: error: {archive}: does not parse; run `tpuemb check` on it\n"
        )


@pytest.mark.parametrize(
    ("value", "kind"),
    [(None, "null"), ("features", "a string"), (3, "a number"), (True, "a boolean")],
)
def test_feature_configs_of_the_wrong_type(tmp_path: Path, value: Any, kind: str) -> None:
    model = copy.deepcopy(BASE)
    _layer_config(model)["feature_configs"] = value
    result = invoke("check", "--tpu", "v5p-8", str(_folder(tmp_path, model)))
    assert result.exit_code == 1
    assert (
        "TE007 [error] a DistributedEmbedding's `feature_configs` must be a FeatureConfig or a "
        f"list or object of them, not {kind}: its `from_config` raises\n" in result.stdout
    )


def test_absent_feature_configs_and_other_values_of_the_wrong_type(tmp_path: Path) -> None:
    model = copy.deepcopy(BASE)
    config = _layer_config(model)
    del config["feature_configs"]
    config.update(name=5, trainable=None, dtype=[])
    result = invoke("check", "--format", "json", "--tpu", "v5p-8", str(_folder(tmp_path, model)))
    assert result.exit_code == 1
    messages = [f["message"] for f in json.loads(result.stdout)["findings"]]
    assert sorted(messages) == sorted(
        [
            "a DistributedEmbedding's `name` must be a string or null, not a number: Keras's Layer "
            "raises ValueError when the model is loaded",
            "a DistributedEmbedding's config has no `feature_configs`: its `from_config` raises "
            "KeyError",
            "a DistributedEmbedding's `trainable` must be true or false, not null: Keras's Layer "
            "raises ValueError when the model is loaded",
            "a DistributedEmbedding's `dtype` must be null, a dtype's name or a serialized "
            "DTypePolicy, not an array: Keras's Layer raises ValueError when the model is loaded",
        ]
    )


@pytest.mark.parametrize(
    ("stray", "kind"),
    [(None, "null"), (5, "a number"), ("x", "a string"), ({"n": [5]}, "a number")],
)
def test_a_stray_value_among_the_feature_configs(tmp_path: Path, stray: Any, kind: str) -> None:
    model = copy.deepcopy(BASE)
    _layer_config(model)["feature_configs"]["h"] = stray
    result = invoke("check", "--format", "json", "--tpu", "v5p-8", str(_folder(tmp_path, model)))
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["rule"], finding["field"], finding["message"]) == (
        "TE007",
        "layers[0].features",
        f"{kind} in a DistributedEmbedding's `feature_configs`, where a FeatureConfig (an object "
        "with a string `name`), a list or an object of them must be: its `from_config` raises",
    )


def test_a_key_no_init_takes(tmp_path: Path) -> None:
    model = copy.deepcopy(BASE)
    _layer_config(model).update(autocast=False, update_stats=True, feature_config={})
    result = invoke("check", "--format", "json", "--tpu", "v5p-8", str(_folder(tmp_path, model)))
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)["findings"]
    assert finding["message"] == (
        "a DistributedEmbedding's config has a key `feature_config` that neither keras-rs 0.4.0's "
        "layer nor Keras's Layer takes: its `from_config` raises ValueError (Unrecognized "
        "keyword arguments)"
    )


def test_combiner_max_on_the_sparsecores(tmp_path: Path) -> None:
    model = json.loads(model_text([table("a", combiner="max", placement="sparsecore")], {"f": 0}))
    result = invoke("check", "--format", "json", "--tpu", "v5p-8", str(_folder(tmp_path, model)))
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["rule"], finding["field"]) == ("TE775", "layers[0].tables[0].combiner")


def _with_schedules(shared_optimizer: bool) -> dict[str, Any]:
    """Two tables' SGD with one ExponentialDecay, as keras 3.15.1's model.save() writes them."""
    model: dict[str, Any] = copy.deepcopy(BASE)
    schedule = {
        "module": "keras.optimizers.schedules",
        "class_name": "ExponentialDecay",
        "config": {"initial_learning_rate": 0.1, "decay_steps": 100, "decay_rate": 0.9},
        "registered_name": None,
    }
    for index, t in enumerate(_layer_config(model)["tables"]):
        rate = dict(schedule, shared_object_id=140) if index == 1 else schedule
        t["placement"] = "sparsecore"
        t["optimizer"] = {
            "module": "keras.optimizers",
            "class_name": "SGD",
            "config": {"name": "sgd", "learning_rate": rate},
            "registered_name": None,
        }
        if shared_optimizer:
            t["optimizer"]["shared_object_id"] = 150
    return model


def test_a_schedule_saved_as_shared_is_reported(tmp_path: Path) -> None:
    path = _folder(tmp_path, _with_schedules(shared_optimizer=False))
    result = invoke("check", "--format", "json", "--tpu", "v5p-8", str(path))
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "TE776"]
    assert [(f["field"], f["message"]) for f in found] == [
        (
            "layers[0].tables[1].optimizer.schedule_shared_with",
            "table 'b' of layer 'm/embedding' has a learning-rate schedule that is one object "
            "with table 'a''s: the live layer stacks their tables together, but Keras saves the "
            "schedule twice and the loaded model has two, which stack apart: "
            "the weights a SparseCore layer saved (one stacked table) do not load (load_model "
            "raises ValueError, 'expected N variables, but received M'), and a model rebuilt "
            "from the "
            "file trains with other stacks than the script that saved it",
        )
    ]
    shared = _folder(tmp_path, _with_schedules(shared_optimizer=True), "shared")
    result = invoke("check", "--format", "json", "--tpu", "v5p-8", str(shared))
    assert [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "TE776"] == []


def _no_features(config: dict[str, Any]) -> None:
    config["feature_configs"] = None


def _max(config: dict[str, Any]) -> None:
    config["tables"][0]["combiner"] = "max"


def test_diff_refuses_a_model_from_config_cannot_load_or_no_path_runs(tmp_path: Path) -> None:
    clean = _folder(tmp_path, BASE, "clean")
    for name, change, rule in (
        ("null", _no_features, "TE007"),
        ("max", _max, "TE775"),
    ):
        model = copy.deepcopy(BASE)
        change(_layer_config(model))
        path = _folder(tmp_path, model, name)
        result = invoke("diff", "--tpu", "v5p-8", str(clean), str(path))
        assert result.exit_code == 2
        assert result.stderr == (
            f"tpuemb: error: {path}: cannot compare: it has errors (reported below)\n"
        )
        # The error said, not counted as a change (issue 38).
        assert f" {rule} [error] " in result.stdout
        assert result.stdout.endswith("Nothing compared (1 file pair could not be compared).\n")


# --- feature_configs against the inputs the model saved the layer with ---

from tests.keras_input_cases import CASES, write_case  # noqa: E402


@pytest.mark.parametrize("name", sorted(CASES))
def test_feature_configs_not_matching_the_saved_inputs_are_one_te007(
    name: str, tmp_path: Path
) -> None:
    _, loads, said = CASES[name]
    result = invoke("check", "--format", "json", str(write_case(name, tmp_path)))
    found = json.loads(result.stdout)["findings"]
    if loads:
        assert result.exit_code == 0 and found == [], result.stdout
        return
    assert result.exit_code == 1
    assert [(f["rule"], f["field"]) for f in found] == [("TE007", "layers[0].features")]
    message = found[0]["message"]
    assert "do not match the inputs the model saved it with" in message and said in message
    assert "raises ValueError" in message


def test_tables_null_is_one_finding_without_one_a_feature(tmp_path: Path) -> None:
    model: dict[str, Any] = copy.deepcopy(BASE)
    _layer_config(model)["tables"] = None
    result = invoke("check", "--format", "json", str(_folder(tmp_path, model)))
    found = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["field"]) for f in found] == [("TE007", "layers[0].tables")], found


@pytest.mark.parametrize(
    "feature",
    [
        {"table": 0, "input_shape": [32, 1], "output_shape": [32, 8]},
        {"name": 5, "table": 0, "input_shape": [32, 1], "output_shape": [32, 8]},
        {"input_shape": [32, 1, 7, 7, 7]},
    ],
)
def test_a_feature_config_without_a_string_name_is_one_finding(
    feature: dict[str, Any], tmp_path: Path
) -> None:
    model: dict[str, Any] = copy.deepcopy(BASE)
    _layer_config(model)["feature_configs"]["h"] = feature
    result = invoke("check", "--format", "json", str(_folder(tmp_path, model)))
    found = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["field"]) for f in found] == [("TE007", "layers[0].features")], found
    assert "without a string `name`" in found[0]["message"]
    assert found[0]["help"]
