"""Keras-RS verdicts found by the hostile review of issue 28, on small config.json files written
here (no Keras): booleans shown as written, duplicate keys, tables of one name, and the forms of
`table_stacking` keras-rs 0.4.0 ignores. The oracle (tests/test_keras_oracle_verdicts.py) checks
the same verdicts against keras-rs itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

_ABSENT = object()


def optimizer(class_name: str, **config: Any) -> dict[str, Any]:
    return {"module": "keras.optimizers", "class_name": class_name, "config": config}


def table(name: str, rows: int = 64, dim: int = 8, **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "vocabulary_size": rows,
        "embedding_dim": dim,
        "optimizer": "adagrad",
        "combiner": "mean",
        "placement": "auto",
        "max_ids_per_partition": 256,
        "max_unique_ids_per_partition": 256,
        **fields,
    }


def model_text(
    tables: list[dict[str, Any]], features: dict[str, int], stacking: Any = _ABSENT
) -> str:
    """A Functional model's config.json holding one DistributedEmbedding: ``features`` maps
    each feature's name to its table's index; each takes (32, 1) ids and returns the table's
    dimension."""
    config: dict[str, Any] = {
        "name": "embedding",
        "feature_configs": {
            name: {
                "name": name,
                "table": index,
                "input_shape": [32, 1],
                "output_shape": [32, tables[index]["embedding_dim"]],
            }
            for name, index in features.items()
        },
        "tables": tables,
    }
    if stacking is not _ABSENT:
        config["table_stacking"] = stacking
    layer = {
        "module": "keras_rs.layers",
        "class_name": "DistributedEmbedding",
        "config": config,
        "registered_name": "keras_rs>DistributedEmbedding",
    }
    return json.dumps(
        {"module": "keras", "class_name": "Functional", "config": {"name": "m", "layers": [layer]}}
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.json"
    path.write_text(text)
    return path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def findings(path: Path, *options: str) -> list[dict[str, Any]]:
    result = invoke("check", "--format", "json", "--tpu", "v5p-8", *options, str(path))
    assert result.exit_code in (0, 1), result.output
    found: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
    return found


# --- R2: booleans as written ---


def test_a_refused_boolean_option_is_shown_as_written(tmp_path: Path) -> None:
    tables = [
        table("items", optimizer=optimizer("Adam", learning_rate=0.001, amsgrad=True)),
        table("tags", optimizer=optimizer("SGD", learning_rate=0.1, nesterov=True, use_ema=True)),
    ]
    path = write(tmp_path, model_text(tables, {"item": 0, "tag": 1}))
    messages = [f["message"] for f in findings(path) if f["rule"] == "TE762"]
    assert len(messages) == 3, messages
    assert "Adam optimizer's `amsgrad` (true):" in messages[0]
    assert any("SGD optimizer's `use_ema` (true):" in m for m in messages), messages
    assert any("SGD optimizer's `nesterov` (true):" in m for m in messages), messages
    assert not any("1.0" in m for m in messages), messages


def test_a_number_written_for_a_boolean_option_stays_a_number(tmp_path: Path) -> None:
    tables = [table("items", optimizer=optimizer("Adam", learning_rate=0.001, amsgrad=1))]
    path = write(tmp_path, model_text(tables, {"item": 0}))
    (message,) = [f["message"] for f in findings(path) if f["rule"] == "TE762"]
    assert "`amsgrad` (1.0):" in message


# --- R3: duplicate keys ---


def test_a_key_written_twice_is_reported_where_it_is_written_again(tmp_path: Path) -> None:
    text = model_text([table("items", dim=8)], {"item": 0})
    # The table's dimension written twice: Python's json (Keras's reader) keeps the last, 16.
    first = text.index('"embedding_dim": 8')
    text = text[:first] + '"embedding_dim": 16, ' + text[first:]
    path = write(tmp_path, text)
    result = invoke("check", "--tpu", "v5p-8", str(path))
    again = text.index('"embedding_dim"', first + 1)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"{path}:1:{again + 1}: TE006 [error] the key `embedding_dim` appears more than once in "
        "one object; Keras reads config.json with Python's json, which keeps only the last"
    )
    # The rest is still read, with the value json keeps: the table is 8 wide again.
    assert "keras-output-dim-mismatch" not in result.output


def test_no_duplicate_finding_for_keys_alike_in_different_objects(tmp_path: Path) -> None:
    path = write(tmp_path, model_text([table("items"), table("tags")], {"item": 0, "tag": 1}))
    assert invoke("check", "--tpu", "v5p-8", str(path)).exit_code == 0


# --- R4: table_stacking forms keras-rs's JAX layer ignores ---

IGNORED_FORMS = [
    ({"group": ["items", "tags"]}, "an object"),
    (3, "a number"),
    (True, "true"),
    ([], "an empty list"),
]


def _stacked(path: Path, backend: str = "jax") -> list[tuple[str, list[str]]]:
    from tpuemb_cli.keras import specs_from_file
    from tpuemb_cli.spec.jax_compiler import compile_jax_spec

    ((_, spec),) = specs_from_file(
        path, backend=backend, global_device_count=4, num_sc_per_device=4, accelerator="v5p"
    )
    return [
        (stack.stack_name, [t.table_name for t in stack.table_specs])
        for stack in compile_jax_spec(spec).stacked_table_specs
    ]


def test_a_stacking_the_jax_layer_ignores_stacks_nothing_and_is_a_warning(
    tmp_path: Path,
) -> None:
    tables = [table("items"), table("tags")]
    for value, said in IGNORED_FORMS:
        path = write(tmp_path, model_text(tables, {"item": 0, "tag": 1}, value))
        found = findings(path)
        assert [(f["rule"], f["severity"]) for f in found] == [("TE770", "warning")], found
        assert f"table_stacking is {said}: keras-rs's JAX layer stacks" in found[0]["message"]
        # One stack a table, as the layer builds: not auto's stack of the two.
        assert _stacked(path) == [("items", ["items"]), ("tags", ["tags"])], value
    auto = write(tmp_path, model_text(tables, {"item": 0, "tag": 1}))
    assert _stacked(auto) == [("items_tags", ["items", "tags"])]


def test_the_tensorflow_conversion_refuses_what_the_jax_layer_ignores(tmp_path: Path) -> None:
    tables = [table("items"), table("tags")]
    for value, said in IGNORED_FORMS:
        path = write(tmp_path, model_text(tables, {"item": 0, "tag": 1}, value))
        found = [f for f in findings(path, "--keras-backend", "tensorflow") if f["rule"] == "TE766"]
        assert len(found) == 1, (value, found)
        assert (
            f"table_stacking is {said}, which Keras-RS's TensorFlow conversion refuses"
            in (found[0]["message"])
        )


def test_a_stacking_on_a_layer_with_no_sparsecore_table_is_not_reported(tmp_path: Path) -> None:
    tables = [table("items", placement="default_device", optimizer="adam")]
    path = write(tmp_path, model_text(tables, {"item": 0}, {"group": ["items"]}))
    assert findings(path) == []


def test_a_live_stacking_the_jax_layer_ignores_reads_as_its_saved_file() -> None:
    from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
    from tpuemb_cli.keras import lint_keras

    items = TableConfig(name="items", vocabulary_size=64, embedding_dim=8)
    feature = FeatureConfig(name="item", table=items, input_shape=(32, 1), output_shape=(32, 8))
    values: list[Any] = [{"group": ["items"]}, (), []]
    for value in values:
        layer = DistributedEmbedding({"item": feature}, table_stacking=value)
        found = lint_keras(layer, global_device_count=4, num_sc_per_device=4, accelerator="v5p")
        assert [f.name for f in found] == ["keras-table-stacking-stacks-nothing"], value


# --- R1: two tables of one name ---


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
    # TensorFlow: TPUEmbeddingV2 refuses the names (the spec rule says so), no TE771.
    assert [f["rule"] for f in findings(path, "--keras-backend", "tensorflow")] == ["TE702"]
    # On v4 the JAX layer keeps both on the TensorCores, apart: only the default optimizers'
    # warnings (TE769).
    result = invoke("check", "--format", "json", "--tpu", "v4-8", str(path))
    assert {f["rule"] for f in json.loads(result.stdout)["findings"]} == {"TE769"}


def test_explain_shows_both_tables_of_one_name(tmp_path: Path) -> None:
    path = write(tmp_path, _one_name())
    result = invoke("explain", "--tpu", "v5p-8", str(path))
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines()[4:8]]
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
