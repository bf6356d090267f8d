"""keras-duplicate-feature-path (TE772): two features at one joined path, and what explain, the
stacks and diff make of the one the layer drops; tests/test_keras_oracle_verdicts.py checks the
verdict against keras-rs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.keras_config_text import findings, invoke, model_text, table, write


def _clashing(placement: str = "auto", nested_first: bool = False) -> str:
    """Features ``a.b`` (table t1) and ``a`` / ``b`` (table t2), and ``c`` (table t3)."""
    tables = [
        table("t1", 64, 8, placement=placement),
        table("t2", 128, 8, placement=placement),
        table("t3", 32, 8),
    ]
    document = json.loads(model_text(tables, {"f1": 0, "c": 2}))
    features: dict[str, Any] = document["config"]["layers"][0]["config"]["feature_configs"]
    nested = {
        "name": "f2",
        "table": 1,
        "input_shape": [32, 1],
        "output_shape": [32, 8],
    }
    features["a.b"] = features.pop("f1")
    features["a"] = {"b": nested}
    if nested_first:  # the text's order does not matter: Keras sorts each level's keys
        features = {"a": features.pop("a"), **features}
        document["config"]["layers"][0]["config"]["feature_configs"] = features
    return json.dumps(document, indent=1)


def test_two_features_at_one_path_report_the_dropped_one(tmp_path: Path) -> None:
    for nested_first in (False, True):
        path = write(tmp_path, _clashing(nested_first=nested_first))
        found = findings(path)
        assert [(f["rule"], f["field"]) for f in found] == [
            ("TE772", "layers[0].features[0].key")
        ], found
        # keras.tree's order: "a" / "b" (f2) before "a.b" (f1), which the layer keeps.
        assert found[0]["message"] == (
            "feature 'f2' and feature 'f1' of layer 'm/embedding' are both at path 'a.b' (their "
            "keys joined by '.'): Keras-RS keeps one feature a path, the later, 'f1' (table "
            "'t1'): the ids of 'f2' are never read, and its output is a copy of the output of "
            "'f1', from table 't1' instead of 't2'"
        )
        line = path.read_text().splitlines()[found[0]["line"] - 1]
        assert '"a"' in line or '"b"' in line or '"name": "f2"' in line, line


def test_on_the_default_device_too_and_not_across_placements(tmp_path: Path) -> None:
    path = write(tmp_path, _clashing(placement="default_device"))
    assert "TE772" in {f["rule"] for f in findings(path)}
    # One on the SparseCores, one on the default device: two dicts, no clash.
    document = json.loads(_clashing())
    document["config"]["layers"][0]["config"]["tables"][1]["placement"] = "default_device"
    path = write(tmp_path, json.dumps(document))
    assert "TE772" not in {f["rule"] for f in findings(path)}


def test_the_dropped_features_table_is_not_built(tmp_path: Path) -> None:
    """The library never builds t2 (only f2 looks it up, and f2 is dropped): the stacks hold t1
    and t3, and explain says t2 is not built and f2 dropped."""
    path = write(tmp_path, _clashing())
    result = invoke("explain", "--tpu", "v5p-8", str(path))
    # Explained as read, TE772 (an error) said first: exit 1 (issue 38).
    assert result.exit_code == 1 and "TE772" in result.stderr, result.output
    assert 'stack "t1_t3"' in result.stdout
    row = next(line for line in result.output.splitlines() if line.strip().startswith("t2 "))
    assert "never built" in row and "f2 (dropped: TE772)" in row, row
    result = invoke("explain", "--memory", "--format", "json", "--tpu", "v5p-8", str(path))
    document = json.loads(result.stdout)
    tables = {t["name"]: t for t in document["layers"][0]["tables"]}
    assert tables["t2"]["features"] == ["f2 (dropped: TE772)"]
    assert tables["t1"]["features"] == ["f1"]
