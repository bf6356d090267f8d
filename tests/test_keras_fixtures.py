"""The committed Keras fixtures (tests/data/keras/, written by make_fixtures.py with keras-rs) hold
what their cases in tests/keras_layers.py say, and the hostile ones stay hostile -- read with the
standard library only: no Keras, no tpuemb."""

from __future__ import annotations

import json
import math
import stat
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.keras_layers import FIXTURES, Case

DATA = Path(__file__).parent / "data" / "keras"
HOSTILE = DATA / "hostile"


def _embedding_layers(config: Any) -> Iterator[dict[str, Any]]:
    """Every DistributedEmbedding layer's config in a model's config, nested models included, in
    the order config.json lists them."""
    if isinstance(config, dict):
        if config.get("class_name") == "DistributedEmbedding":
            yield config["config"]
            return
        for value in config.values():
            yield from _embedding_layers(value)
    elif isinstance(config, list):
        for value in config:
            yield from _embedding_layers(value)


def _config(path: Path) -> Any:
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        return json.loads(archive.read("config.json"))


def _same_number(saved: Any, given: Any) -> bool:
    """Keras saves a learning rate as the float32 nearest the one given."""
    if isinstance(given, float):
        return math.isclose(saved, given, rel_tol=1e-7)
    return bool(saved == given)


def _optimizer_matches(saved: Any, given: Any) -> None:
    if isinstance(given, str):
        assert saved == given
        return
    assert saved["class_name"] == given["class_name"]
    for key, value in given["config"].items():
        if isinstance(value, dict):  # a learning-rate schedule
            assert saved["config"][key]["class_name"] == value["class_name"]
        else:
            assert _same_number(saved["config"][key], value), (key, saved["config"][key])


@pytest.mark.parametrize("case", FIXTURES, ids=[c["name"] for c in FIXTURES])
def test_each_fixture_holds_its_case(case: Case) -> None:
    layers = list(_embedding_layers(_config(DATA / f"{case['name']}.keras")))
    assert [layer["name"] for layer in layers] == [data["name"] for data in case["layers"]]
    for saved, data in zip(layers, case["layers"], strict=True):
        tables = {table["name"]: table for table in saved["tables"]}
        assert sorted(tables) == sorted(t["name"] for t in data["tables"])
        for given in data["tables"]:
            table = tables[given["name"]]
            assert table["vocabulary_size"] == given["vocabulary_size"]
            assert table["embedding_dim"] == given["embedding_dim"]
            assert table["placement"] == given.get("placement", "auto")
            _optimizer_matches(table["optimizer"], given["optimizer"])
        features = saved["feature_configs"]
        if data["structure"] == "single":
            features = {features["name"]: features}
        for given in data["features"]:
            feature = features[given["name"]]
            assert (
                saved["tables"][feature["table"]]["name"] == data["tables"][given["table"]]["name"]
            )
            assert feature["input_shape"] == given["input_shape"]
            assert feature["output_shape"] == given["output_shape"]
        # A CPU layer's config leaves table_stacking out; the simulated SparseCore keeps it.
        if case["sparsecore"]:
            assert saved["table_stacking"] == data["table_stacking"]
        else:
            assert "table_stacking" not in saved


def test_the_nested_fixture_holds_its_layer_inside_a_sequential_model() -> None:
    model = _config(DATA / "nested.keras")
    assert model["class_name"] == "Functional"
    inner = [layer for layer in model["config"]["layers"] if layer["class_name"] == "Sequential"]
    assert len(inner) == 1
    assert [layer["class_name"] for layer in inner[0]["config"]["layers"]] == [
        "InputLayer",
        "DistributedEmbedding",
    ]


def _headers(path: Path) -> tuple[int, int]:
    """The uncompressed size the first member's local header and central directory entry declare."""
    data = path.read_bytes()
    local = struct.unpack_from("<I", data, 22)[0]
    central = struct.unpack_from("<I", data, data.index(b"PK\x01\x02") + 24)[0]
    return local, central


def test_the_bombs_declare_what_they_do_not_hold() -> None:
    inflated = 300 * 1024 * 1024
    for name, declared in (("bomb_lying_size", 200), ("bomb_large", inflated)):
        path = HOSTILE / f"{name}.keras"
        assert path.stat().st_size < 400_000
        assert _headers(path) == (declared, declared)
        with zipfile.ZipFile(path) as archive:
            (info,) = archive.infolist()
            assert (info.filename, info.compress_type) == ("config.json", zipfile.ZIP_DEFLATED)
    # The lying one's deflate stream is the large one's: it inflates to 300 MiB too.
    assert (HOSTILE / "bomb_lying_size.keras").read_bytes()[30:-100] == (
        HOSTILE / "bomb_large.keras"
    ).read_bytes()[30:-100]


def test_the_other_hostile_archives() -> None:
    with zipfile.ZipFile(HOSTILE / "path_traversal.keras") as archive:
        assert "../../outside.json" in archive.namelist()
        assert json.loads(archive.read("config.json"))["class_name"] == "Functional"
    with zipfile.ZipFile(HOSTILE / "symlink.keras") as archive:
        link = archive.getinfo("config.json")
        assert stat.S_ISLNK(link.external_attr >> 16)
        assert archive.read(link) == b"/etc/passwd"
    assert not zipfile.is_zipfile(HOSTILE / "not_a_zip.keras")
    with zipfile.ZipFile(HOSTILE / "no_config.keras") as archive:
        assert archive.namelist() == ["metadata.json"]
    with zipfile.ZipFile(HOSTILE / "bad_json.keras") as archive, pytest.raises(ValueError):
        json.loads(archive.read("config.json"))
    with zipfile.ZipFile(HOSTILE / "config_not_object.keras") as archive:
        assert json.loads(archive.read("config.json")) == [1, 2]
