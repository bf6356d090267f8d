"""TE957 unsaved-state: `tpuemb diff` of two Keras-RS models with the TensorFlow backend names
the tables neither saved file holds (more in tests/test_keras_diff.py; against keras-rs and
TensorFlow in tests/test_tf_keras_saving_oracle.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.keras_config_text import invoke, model_text, table, write


def _pair(tmp_path: Path) -> tuple[str, str]:
    tables = [table("users", 1000, 16), table("tags", 64, 4, placement="default_device")]
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = write(tmp_path / "old", model_text(tables, {"user": 0, "tag": 1}))
    new = write(tmp_path / "new", model_text(tables, {"user": 0, "tag": 1}))
    return str(old), str(new)


def test_reported_as_a_warning_outside_the_default_fail_on(tmp_path: Path) -> None:
    old, new = _pair(tmp_path)
    args = ("diff", "--tpu", "v5p-8", "--keras-backend", "tensorflow", "--format", "json")
    result = invoke(*args, old, new)
    assert result.exit_code == 0, result.output
    [change] = json.loads(result.stdout)["changes"]
    assert (change["rule"], change["kind"], change["table"]) == ("TE957", "unsaved-state", "users")
    assert change["field"] == "layers[0].tables[0]"
    assert invoke(*args, "--fail-on", "unsaved-state", old, new).exit_code == 1
    assert invoke(*args, "--fail-on", "TE957", old, new).exit_code == 1


def test_never_with_the_jax_backend(tmp_path: Path) -> None:
    old, new = _pair(tmp_path)
    result = invoke("diff", "--tpu", "v5p-8", "--format", "json", old, new)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["changes"] == []
