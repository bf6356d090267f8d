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
