"""A saved model (tests/data/keras/clean.keras, by keras-rs 0.4.0) with its layer's
`feature_configs` and the inputs it was saved with changed apart or together (issue 36): which
of them `keras.saving.load_model` loads was measured on CPU (tests/test_keras_oracle_verdicts.py
loads each again) and is what `tpuemb check` must say."""

from __future__ import annotations

import copy
import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

CLEAN = Path(__file__).parent / "data" / "keras" / "clean.keras"


def _layer(model: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(
        item for item in model["config"]["layers"] if item["class_name"] == "DistributedEmbedding"
    )
    return found


def _features(model: dict[str, Any]) -> dict[str, Any]:
    features: dict[str, Any] = _layer(model)["config"]["feature_configs"]
    return features


def _dropped(m: dict[str, Any]) -> None:
    del _features(m)["users_ids"]


def _as_list(m: dict[str, Any]) -> None:
    f = _features(m)
    _layer(m)["config"]["feature_configs"] = [f["items_ids"], f["users_ids"]]


def _nested(m: dict[str, Any]) -> None:
    _layer(m)["config"]["feature_configs"] = {"g": _features(m)}


def _empty(m: dict[str, Any]) -> None:
    _layer(m)["config"]["feature_configs"] = {}


def _renamed(m: dict[str, Any]) -> None:
    f = _features(m)
    f["u2"] = f.pop("users_ids")


def _name_only(m: dict[str, Any]) -> None:
    _features(m)["users_ids"]["name"] = "other"


def _build_config_key(m: dict[str, Any]) -> None:
    shapes = _layer(m)["build_config"]["input_shape"]
    shapes["zz"] = shapes.pop("users_ids")


def _call_key(m: dict[str, Any]) -> None:
    tensors = _layer(m)["inbound_nodes"][0]["args"][0]
    tensors["zz"] = tensors.pop("users_ids")


def _no_build_config(m: dict[str, Any]) -> None:
    del _layer(m)["build_config"]


def _all_lists(m: dict[str, Any], short: bool = False) -> None:
    layer = _layer(m)
    f = layer["config"]["feature_configs"]
    layer["config"]["feature_configs"] = [f["items_ids"]] + ([] if short else [f["users_ids"]])
    shapes = layer["build_config"]["input_shape"]
    layer["build_config"]["input_shape"] = [shapes["items_ids"], shapes["users_ids"]]
    node = layer["inbound_nodes"][0]
    node["args"][0] = [node["args"][0]["items_ids"], node["args"][0]["users_ids"]]


def _call_deeper(m: dict[str, Any]) -> None:
    tensors = _layer(m)["inbound_nodes"][0]["args"][0]
    tensors["users_ids"] = {"x": tensors["users_ids"]}


def _build_deeper(m: dict[str, Any]) -> None:
    shapes = _layer(m)["build_config"]["input_shape"]
    shapes["users_ids"] = {"x": shapes["users_ids"]}


def _shapes_null(m: dict[str, Any]) -> None:
    _layer(m)["build_config"]["input_shape"] = None


def _build_config_null(m: dict[str, Any]) -> None:
    _layer(m)["build_config"] = None


def _keyword(m: dict[str, Any]) -> None:
    node = _layer(m)["inbound_nodes"][0]
    node["kwargs"], node["args"] = {"inputs": node["args"][0]}, []


# name -> (change, whether Keras loads it, what tpuemb's message says of the inputs)
CASES: dict[str, tuple[Callable[[dict[str, Any]], None], bool, str]] = {
    "dropped": (_dropped, False, "(no feature for 'users_ids')"),
    "as_list": (_as_list, False, "a list of features where the inputs are an object"),
    "nested": (_nested, False, "(no input for 'g'; no feature for 'items_ids', 'users_ids')"),
    "empty": (_empty, False, "features none where the inputs are 'items_ids', 'users_ids'"),
    "renamed": (_renamed, False, "(no input for 'u2'; no feature for 'users_ids')"),
    "name_only": (_name_only, True, ""),
    "build_config_key": (_build_config_key, False, "(`build_config.input_shape`)"),
    "call_key": (_call_key, False, "(`inbound_nodes[0]`)"),
    "no_build_config": (_no_build_config, True, ""),
    "all_lists": (_all_lists, True, ""),
    "lists_short": (lambda m: _all_lists(m, short=True), False, "1 feature where the inputs are 2"),
    "call_deeper": (_call_deeper, False, "an object where one feature's input must be"),
    "build_deeper": (_build_deeper, False, "an object where one feature's input must be"),
    "shapes_null": (_shapes_null, False, "an object of features where the inputs are null"),
    "build_config_null": (_build_config_null, True, ""),
    "keyword": (_keyword, True, ""),
}


def write_case(name: str, folder: Path) -> Path:
    """The clean archive with the case's change, written to ``folder``."""
    with zipfile.ZipFile(CLEAN) as source:
        members = {member: source.read(member) for member in source.namelist()}
    model = copy.deepcopy(json.loads(members["config.json"]))
    CASES[name][0](model)
    members["config.json"] = json.dumps(model).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    path = folder / f"{name}.keras"
    path.write_bytes(buffer.getvalue())
    return path
