"""Will an Orbax checkpoint of a Keras-RS model restore a layer's default-device tables?
(``tpuemb diff --against-checkpoint CKPT model.keras``, the tables no SparseCore takes.)

A table on the default device is a plain Keras embedding, one per table, whose variable is
named after the table: ``<layer>/<table>/embeddings`` (keras-rs 0.4.0,
`layers/embedding/base_distributed_embedding.py
<https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/base_distributed_embedding.py>`_,
``_default_device_init``). ``JaxKeras3CheckpointManager.save_state`` saves
``model.get_state_tree()`` (`jax/checkpoint_utils.py
<https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/checkpoint_utils.py>`_),
which keys each variable by its path (keras 3, `models/model.py
<https://github.com/keras-team/keras/blob/v3.15.1/keras/src/models/model.py>`_,
``get_state_tree``): the table at ``('trainable_variables', <layer>, <table>, 'embeddings')``,
the model optimizer's slots at ``('optimizer_variables', <optimizer>,
'<layer>_<table>_embeddings_<slot>')``. ``restore_state`` restores the new model's tree with
``StandardRestore``, which Orbax 0.12.8 restores strictly (`checkpoint/_src/handlers/
standard_checkpoint_handler.py
<https://github.com/google/orbax/blob/v0.12.8/checkpoint/orbax/checkpoint/_src/handlers/standard_checkpoint_handler.py>`_):
a key on one side only (a table added, removed or renamed) refuses the tree, and another shape
refuses the array. A table that keeps its name and shape restores its own rows, wherever it is
listed: rows follow the name, so tables reordered, or features renamed or moved to another table,
restore them right (tests/test_keras_orbax_oracle.py, against keras-rs itself on CPU).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.load.orbax import TREE_MISMATCH, Array, OrbaxCheckpoint, shape_mismatch
from tpuemb_cli.model.words import printable


def stored_tables(checkpoint: OrbaxCheckpoint, layer: str) -> dict[str, Array]:
    """The default-device tables the checkpoint holds for the layer named ``layer``: each array
    at a key path ``.../<layer>/<table>/embeddings``, by table name."""
    found: dict[str, Array] = {}
    for item in checkpoint.items:
        for array in item.arrays:
            path = array.path
            if len(path) >= 3 and path[-1] == "embeddings" and path[-3] == layer:
                found.setdefault(str(path[-2]), array)
    return found


def default_table_changes(
    checkpoint: OrbaxCheckpoint, layer: Any, index: int, tables: list[Any]
) -> Iterator[Change]:
    """What refuses the restore of the layer's default-device ``tables`` (the entries of
    ``weights.layer_entries``: name, shape, path; a table's later feature, shape None, is
    skipped): a table the checkpoint lacks, one of another shape, and one only the checkpoint
    holds, placed at the new layer's table (the last at the layer's first table, or the layer
    ``layers[index]``)."""
    held = stored_tables(checkpoint, layer.name)
    names = set()
    where = f"`{printable(layer.name)}`"
    for entry in tables:
        if entry.shape is None:
            continue
        names.add(entry.name)
        stored = held.get(entry.name)
        shape = tuple(entry.shape)
        if stored is None:
            others = ", ".join(f"`{printable(n)}`" for n in sorted(held)) or "none"
            yield Change(
                "restore-error",
                entry.name,
                (*entry.path, "name"),
                None,
                entry.name,
                f"restoring fails: the new table `{printable(entry.name)}` {_shape(shape)} of "
                f"layer {where} has no entry in the checkpoint (it holds {others} for the "
                f"layer; keys are variable paths, `{printable(layer.name)}/<table>/embeddings`) "
                f"({TREE_MISMATCH})",
            )
        elif stored.shape is not None and tuple(stored.shape) != shape:
            field = "vocabulary_size" if stored.shape[:1] != shape[:1] else "embedding_dim"
            yield Change(
                "restore-error",
                entry.name,
                (*entry.path, field),
                _shape(stored.shape),
                _shape(shape),
                f"restoring fails: the checkpoint's table `{printable(entry.name)}` of layer "
                f"{where} has shape {_shape(stored.shape)}, the new model's {_shape(shape)} "
                f"({shape_mismatch(tuple(shape), tuple(stored.shape))})",
            )
    first = next((e.path for e in tables if e.shape is not None), ("layers", index))
    for name in sorted(set(held) - names):
        yield Change(
            "restore-error",
            name,
            first,
            name,
            None,
            f"restoring fails: the checkpoint's table `{printable(name)}` "
            f"{_shape(held[name].shape)} of layer {where} is no default-device table of the new "
            f"model ({TREE_MISMATCH})",
        )


def _shape(shape: Any) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ")" if shape is not None else "(unknown)"


def _owner(path: tuple[Any, ...]) -> str | None:
    """The layer a DistributedEmbedding's variable belongs to, by its key path's shape: a
    default-device table ``<layer>/<table>/embeddings`` under ``trainable_variables``, or a stack
    ``<layer>/var:<stack>:table`` (a plain Keras Embedding's ``<layer>/embeddings`` is neither)."""
    if not path or path[0] != "trainable_variables":
        return None
    if len(path) == 4 and path[-1] == "embeddings":
        return str(path[1])
    if len(path) == 3 and isinstance(path[-1], str) and path[-1].startswith("var:"):
        return str(path[1])
    return None


def removed_layers(checkpoint: OrbaxCheckpoint, layers: set[str], anchor: Any) -> Iterator[Change]:
    """A DistributedEmbedding layer the checkpoint holds and the model does not (removed, or
    renamed): its variables are keys the new model's tree lacks, which the strict restore
    refuses. Placed at ``anchor`` (the model's first layer)."""
    seen: dict[str, int] = {}
    for item in checkpoint.items:
        for array in item.arrays:
            owner = _owner(array.path)
            if owner is not None and owner not in layers:
                seen[owner] = seen.get(owner, 0) + 1
    for owner, count in sorted(seen.items()):
        yield Change(
            "restore-error",
            None,
            anchor,
            printable(owner),
            None,
            f"restoring fails: the checkpoint holds {count} embedding variable(s) of a "
            f"DistributedEmbedding layer `{printable(owner)}`, which the model does not have "
            f"(removed or renamed): the restore refuses keys the new model lacks ({TREE_MISMATCH})",
            side="new",
        )
