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
    tmp_path: Path,
    rows: int = 1536,
    slots: tuple[str, ...] = ("accumulator",),
    layer: str = "embedding",
) -> Path:
    emb = ("trainable_variables", layer)
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


# tests/data/orbax/keras_cpu_manager: keras-rs on CPU, every table on the default device, layer
# `emb`: `trainable_variables/emb/user/embeddings` (100, 8) and `.../item/embeddings` (60, 8).
CPU_CHECKPOINT = Path(__file__).parent / "data" / "orbax" / "keras_cpu_manager" / "ckpt"


def _cpu_model(tmp_path: Path, tables: dict[str, tuple[int, int]]) -> Path:
    listed = [table(name, rows, dim) for name, (rows, dim) in tables.items()]
    features = {f"{name}_id": index for index, name in enumerate(tables)}
    text = model_text(listed, features).replace('"name": "embedding"', '"name": "emb"', 1)
    return write(tmp_path, text)


def _v4(model: Path) -> tuple[int, list[dict[str, Any]], str]:
    result = CliRunner().invoke(
        main,
        [
            "diff",
            "--isolated",
            "--format",
            "json",
            "--tpu",
            "v4-8",
            "--against-checkpoint",
            str(CPU_CHECKPOINT),
            str(model),
        ],
    )
    changes = json.loads(result.stdout)["changes"] if result.stdout.strip() else []
    return result.exit_code, changes, result.stderr


def test_default_device_tables_of_the_same_names_and_shapes_restore(tmp_path: Path) -> None:
    # Listed the other way round: the rows follow the names.
    code, changes, stderr = _v4(_cpu_model(tmp_path, {"item": (60, 8), "user": (100, 8)}))
    assert (code, changes) == (0, []), stderr


def test_a_default_device_table_of_another_shape_refuses(tmp_path: Path) -> None:
    code, changes, _ = _v4(_cpu_model(tmp_path, {"user": (120, 8), "item": (60, 8)}))
    assert code == 1
    assert [(c["kind"], c["table"], c["field"]) for c in changes] == [
        ("restore-error", "user", "layers[0].tables[0].vocabulary_size")
    ]
    assert changes[0]["message"] == (
        "restoring fails: the checkpoint's table `user` of layer `emb` has shape (100, 8), the "
        "new model's (120, 8) (Orbax: `Requested shape: (120, 8) is not compatible with the "
        "stored shape: (100, 8)`)"
    )


def test_a_renamed_default_device_table_refuses(tmp_path: Path) -> None:
    code, changes, _ = _v4(_cpu_model(tmp_path, {"person": (100, 8), "item": (60, 8)}))
    assert code == 1
    assert [(c["kind"], c["table"], c["field"]) for c in changes] == [
        ("restore-error", "person", "layers[0].tables[0].name"),
        # At the layer's first table in feature order (`item_id` sorts first).
        ("restore-error", "user", "layers[0].tables[1]"),
    ]
    missing, extra = changes[0]["message"], changes[1]["message"]
    assert "no entry in the checkpoint (it holds `item`, `user` for the layer" in missing
    assert "table `user` (100, 8) of layer `emb` is no default-device table" in extra


def test_stacks_under_another_layer_name_do_not_restore(tmp_path: Path) -> None:
    """The restore's key paths hold the layer's name: a renamed layer finds none of its own."""
    code, changes, _ = _diff(_checkpoint(tmp_path, layer="old_embedding"), _model(tmp_path))
    assert code == 1 and [c["kind"] for c in changes] == ["restore-error", "restore-error"]
    messages = " ".join(c["message"] for c in changes)
    assert "`default/trainable_variables/old_embedding`" in messages
    # and the layer the model no longer has, named as such
    assert "layer `old_embedding`, which the model does not have" in messages


def _compiled(tmp_path: Path, optimizer: Any) -> Path:
    """The CPU checkpoint's model, compiled with ``optimizer`` (as config.json's
    ``compile_config`` saves it)."""
    path = _cpu_model(tmp_path, {"user": (100, 8), "item": (60, 8)})
    value = json.loads(path.read_text())
    value["compile_config"] = {"optimizer": optimizer, "loss": "mse"}
    path.write_text(json.dumps(value))
    return path


def _keras_optimizer(kind: str, name: str, **config: Any) -> dict[str, Any]:
    return {
        "module": "keras.optimizers",
        "class_name": kind,
        "config": {"name": name, "learning_rate": 0.001, **config},
    }


def test_the_model_optimizer_of_the_checkpoint_restores(tmp_path: Path) -> None:
    for compiled in (_keras_optimizer("Adam", "adam", amsgrad=False), "adam"):
        code, changes, stderr = _v4(_compiled(tmp_path, compiled))
        assert (code, changes) == (0, []), stderr


def test_another_model_optimizer_name_refuses(tmp_path: Path) -> None:
    code, changes, _ = _v4(_compiled(tmp_path, _keras_optimizer("Adagrad", "adagrad")))
    assert code == 1
    assert [(c["kind"], c["field"], c["old"], c["new"]) for c in changes] == [
        ("restore-error", "optimizer.name", "adam", "adagrad")
    ]
    assert "under `adam`, the new model's optimizer is Adagrad `adagrad`" in changes[0]["message"]


def test_other_slots_under_the_old_name_refuse(tmp_path: Path) -> None:
    # Adagrad named `adam`: the name finds the group, each table's slots do not match.
    code, changes, _ = _v4(_compiled(tmp_path, _keras_optimizer("Adagrad", "adam")))
    assert code == 1
    assert sorted((c["kind"], c["table"]) for c in changes) == [
        ("restore-error", "item"),
        ("restore-error", "user"),
    ]
    assert "slots `momentum`, `velocity` of table `item`" in changes[0]["message"]
    assert "builds `accumulator` (keys `emb_item_embeddings_<slot>`)" in changes[0]["message"]
    code, changes, _ = _v4(_compiled(tmp_path, _keras_optimizer("Adam", "adam", amsgrad=True)))
    assert code == 1 and len(changes) == 2
    assert "`momentum`, `velocity`, `velocity_hat`" in changes[0]["message"]


def test_an_unknown_optimizer_class_is_compared_by_name_only(tmp_path: Path) -> None:
    code, changes, stderr = _v4(_compiled(tmp_path, _keras_optimizer("MyOptimizer", "adam")))
    assert (code, changes) == (0, []), stderr


def test_a_model_saved_uncompiled_compares_its_tables_only(tmp_path: Path) -> None:
    code, changes, stderr = _v4(_compiled(tmp_path, None))
    assert (code, changes) == (0, []), stderr
