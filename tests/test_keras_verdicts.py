"""Keras-RS messages and loading found by the hostile review of issue 28, on small config.json
files written here (no Keras): booleans shown as written, and duplicate keys."""

from __future__ import annotations

from pathlib import Path

from tests.keras_config_text import findings, invoke, model_text, optimizer, table, write

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
    # Shown as written: the integer 1, neither `true` nor 1.0.
    assert "`amsgrad` (1):" in message


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
