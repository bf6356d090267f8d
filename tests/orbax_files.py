"""Orbax checkpoints' metadata written as orbax-checkpoint 0.12.8 writes it (tests/data/orbax
shows real ones), without the arrays' values: what tpuemb reads of a checkpoint when zstandard
is not installed, for trees and shapes no fixture has. ``use_ocdbt`` is false (Orbax then keeps
each array in a zarr folder of its own, which tpuemb does not read); a checkpoint that says its
values are in an OCDBT store and has none does not restore, and is refused."""

from __future__ import annotations

import base64
import json
from pathlib import Path

Leaf = tuple[tuple[str, ...], tuple[int, ...] | None]  # key path, global shape (None: SGD's slot)


def write_step(
    step: Path, items: dict[str, list[Leaf]], proto: str | None = None, devices: int = 4
) -> Path:
    """A CheckpointManager's step directory: each item's leaves sharded over ``devices`` along
    their first dimension (``PartitionSpec('sparsecore', None)``), and an ``embedding_spec``
    item holding ``proto`` (text format) where given."""
    handlers = dict.fromkeys(items, "orbax.checkpoint.StandardCheckpointHandler")
    if proto is not None:
        handlers["embedding_spec"] = "orbax.checkpoint.ProtoCheckpointHandler"
        (step / "embedding_spec").mkdir(parents=True)
        (step / "embedding_spec" / "proto.pbtxt").write_text(proto)
    step.mkdir(parents=True, exist_ok=True)
    (step / "_CHECKPOINT_METADATA").write_text(json.dumps({"item_handlers": handlers}))
    for name, leaves in items.items():
        folder = step / name
        folder.mkdir()
        tree, sharding = {}, {}
        for path, shape in leaves:
            keys = [{"key": key, "key_type": 2} for key in path]
            if shape is None:
                value = {"value_type": "None", "skip_deserialize": True}
            else:
                write = [shape[0] // devices, *shape[1:]]
                value = {"value_type": "jax.Array", "skip_deserialize": False, "write_shape": write}
                named = {
                    "sharding_type": "NamedSharding",
                    "shape": [devices],
                    "axis_names": ["sparsecore"],
                    "partition_spec": ["sparsecore", *[None] * (len(shape) - 1)],
                }
                dotted = ".".join(path).encode()
                sharding[base64.b64encode(dotted).decode()] = json.dumps(named)
            tree[str(tuple(path))] = {"key_metadata": keys, "value_metadata": value}
        (folder / "_METADATA").write_text(json.dumps({"tree_metadata": tree, "use_ocdbt": False}))
        (folder / "_sharding").write_text(json.dumps(sharding))
    return step
