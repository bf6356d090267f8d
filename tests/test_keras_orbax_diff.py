"""`tpuemb diff --against-checkpoint` of a Keras-RS model (JAX backend) against an Orbax
checkpoint as keras-rs's JaxKeras3CheckpointManager writes one (one item, `default`; the layer's
stacks as flat keys `var:<stack>:table`, tests/data/orbax/README.md): each layer's stacks, laid
out for the TPU `--tpu` names, against the stacks the checkpoint holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tests.keras_config_text import model_text, optimizer, table, write
from tests.orbax_files import Leaf, write_step
from tpuemb_cli.cli import main


def _model(tmp_path: Path, **fields: Any) -> Path:
    tables = [table("users", 1000, 16, **fields), table("items", 500, 16, **fields)]
    folder = tmp_path / "model"
    folder.mkdir()
    return write(folder, model_text(tables, {"user": 0, "item": 1}))


def _checkpoint(
    tmp_path: Path, rows: int = 1536, slots: tuple[str, ...] = ("accumulator",)
) -> Path:
    emb = ("trainable_variables", "embedding")
    leaves: list[Leaf] = [((*emb, "var:items_users:table"), (rows, 16))]
    leaves += [((*emb, f"var:items_users:table:slot:{slot}"), (rows, 16)) for slot in slots]
    leaves += [(("trainable_variables", "dense", "kernel"), (16, 1))]
    return write_step(tmp_path / "ckpt" / "3", {"default": leaves})


def _diff(checkpoint: Path, model: Path, *extra: str) -> tuple[int, list[dict[str, Any]], str]:
    result = CliRunner().invoke(
        main,
        [
            "diff",
            "--isolated",
            "--format",
            "json",
            "--tpu",
            "v5p-8",
            *extra,
            "--against-checkpoint",
            str(checkpoint),
            str(model),
        ],
    )
    changes = json.loads(result.stdout)["changes"] if result.stdout.strip() else []
    return result.exit_code, changes, result.stderr


def test_the_same_stacks_restore_unverified(tmp_path: Path) -> None:
    code, changes, stderr = _diff(_checkpoint(tmp_path), _model(tmp_path))
    assert code == 0, stderr
    assert [(c["kind"], c["table"]) for c in changes] == [("unverified-layout", "items_users")]
    assert changes[0]["field"].startswith("layers[0].tables[")


def test_another_shape_or_optimizer_refuses(tmp_path: Path) -> None:
    model = _model(tmp_path)
    code, changes, _ = _diff(_checkpoint(tmp_path, rows=2048), model)
    assert code == 1 and [c["kind"] for c in changes] == ["restore-error"]
    assert "(2048, 16)" in changes[0]["message"]
    (tmp_path / "adam").mkdir()
    adam = _model(tmp_path / "adam", optimizer=optimizer("Adam", learning_rate=0.001))
    code, changes, _ = _diff(_checkpoint(tmp_path / "adam"), adam)
    assert code == 1 and [c["kind"] for c in changes] == ["restore-error"]
    assert "`momentum`, `velocity`" in changes[0]["message"]


def test_the_tensorflow_backend_saves_no_orbax_checkpoint(tmp_path: Path) -> None:
    code, _, stderr = _diff(
        _checkpoint(tmp_path), _model(tmp_path), "--keras-backend", "tensorflow"
    )
    assert code == 2 and "tensorflow backend saves no Orbax checkpoint" in stderr


def test_without_a_tpu_the_stacks_are_not_known(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "diff",
            "--isolated",
            "--against-checkpoint",
            str(_checkpoint(tmp_path)),
            str(_model(tmp_path)),
        ],
    )
    assert result.exit_code == 2 and "--tpu" in result.stderr
