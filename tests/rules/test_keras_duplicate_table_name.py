"""keras-duplicate-table-name (TE771), and explain of such a layer;
tests/test_keras_oracle_verdicts.py checks them against keras-rs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.keras_config_text import findings, invoke, model_text, table, write


def _one_name() -> str:
    tables = [
        table("users", 1000, 16),
        table("items", 500, 8, optimizer="adam"),
        table("items", 64, 4, optimizer="sgd"),
    ]
    return model_text(tables, {"user": 0, "item": 1, "tag": 2})


def test_two_tables_of_one_name_on_sparsecores_are_an_error_on_the_second(tmp_path: Path) -> None:
    path = write(tmp_path, _one_name())
    found = findings(path)
    assert [(f["rule"], f["field"]) for f in found] == [("TE771", "layers[0].tables[2].name")]
    assert found[0]["message"] == (
        "tables 1 and 2 of layer 'm/embedding' are both named 'items' and go to the "
        "SparseCores: Keras-RS's JAX conversion keeps one table per name, table 1 (500 x 8, "
        "adam): table 2's features ('tag') read table 1's rows, and table 2 (64 x 4, sgd) is "
        "never built"
    )


def test_two_tables_of_one_name_elsewhere(tmp_path: Path) -> None:
    path = write(tmp_path, _one_name())
    # TensorFlow: TPUEmbeddingV2 refuses the names (the spec rule says so), no TE771 (and its
    # tables would be saved nowhere: TE773).
    rules = [f["rule"] for f in findings(path, "--keras-backend", "tensorflow")]
    assert sorted(rules) == ["TE702", "TE773"]
    # On v4 the JAX layer keeps both on the TensorCores, apart: only the default optimizers'
    # warnings (TE769).
    result = invoke("check", "--format", "json", "--tpu", "v4-8", str(path))
    assert {f["rule"] for f in json.loads(result.stdout)["findings"]} == {"TE769"}


def test_explain_shows_both_tables_of_one_name(tmp_path: Path) -> None:
    path = write(tmp_path, _one_name())
    result = invoke("explain", "--tpu", "v5p-8", str(path))
    assert result.exit_code == 1 and "TE771" in result.stderr, result.output  # said first
    rows = [line.split() for line in result.stdout.splitlines()[4:8]]
    assert [row[:4] for row in rows[1:]] == [
        ["users", "1,000", "x", "16"],
        ["items", "500", "x", "8"],
        ["items", "64", "x", "4"],
    ]
    assert "nowhere: merged" in result.output.splitlines()[7]
    assert "named like the items table of 500 x 8 above" in result.output
    document = json.loads(
        invoke("explain", "--memory", "--format", "json", "--tpu", "v5p-8", str(path)).stdout
    )
    tables = document["layers"][0]["tables"]
    assert [(t["name"], t["replaced_by"]) for t in tables] == [
        ("users", None),
        ("items", None),
        ("items", 1),
    ]


def test_the_merged_tables_optimizer_is_not_judged(tmp_path: Path) -> None:
    """The JAX conversion never converts the second table of a name, so an optimizer it would
    refuse there raises nothing (TE762 would be a false error); TensorFlow converts it."""
    tables = [
        table("items", 500, 8, optimizer="adam"),
        table("items", 64, 4, optimizer={"class_name": "Adam", "config": {"amsgrad": True}}),
    ]
    path = write(tmp_path, model_text(tables, {"item": 0, "tag": 1}))
    assert [f["rule"] for f in findings(path)] == ["TE771"]
    assert {f["rule"] for f in findings(path, "--keras-backend", "tensorflow")} >= {"TE762"}
