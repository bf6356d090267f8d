"""What TensorFlow 2.21 does when it restores a TPUEmbeddingV2 checkpoint into an embedding of
another SparseCore spec, stack by stack. Found by reading TensorFlow and proved by running it
(tests/test_tf_sparsecore_diff.py restores real TPUEmbeddingV2 checkpoints on CPU).

TPUEmbeddingV2 restores in one of two ways, and which one depends on when ``restore()`` is
called, not on the spec:

- **into built variables** (``restore()`` after ``build()`` or the first call): each stacked
  variable is restored by name and shape, as any variable (tensorflow/python/checkpoint/
  restore.py). Another shape raises (``shape in shape_and_slice spec [..] does not match the
  shape stored in checkpoint``); the same shape restores the saved values as they are, so a
  table whose rows sit elsewhere in the new stack reads other rows.
- **before the variables exist** (``restore()`` first, the variables made on build): then
  ``TPUEmbeddingV2._checkpoint_adapter`` (tpu_embedding_v3.py) hands the restore to
  ``TpuEmbeddingV3CheckpointAdapter`` (tensorflow/python/tpu/tpu_embedding_v3_checkpoint_adapter.py,
  https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3_checkpoint_adapter.py),
  which reads the checkpoint's ``_sparse_core_table_layouts``. Where every layout is the same,
  it steps aside. Otherwise it re-lays out: for each new stack whose name the checkpoint holds,
  it unshards the old stacks its members were in, by the old layouts, and shards them by the new
  ones (``EmbeddingReshardCallback``). Three things follow from its code, and happen:
  a stack the checkpoint does not name gets nothing (callbacks are found by the checkpoint's
  names, ``get_reshard_callback``); a member whose own shape changed is padded by the new
  layout's padding to the wrong size (``_shard_from_cpu_to_sc``), which raises when the stack's
  rows no longer add up and shifts every row after it when they do; and a slot variable's
  checkpoint entry is renamed to its stack's (``maybe_reshard`` returns the callback's
  ``object_name()``), so every slot variable starts from its initializer.

In both ways, ``is_applicable`` first compares the layouts' keys: a table added, removed or
renamed raises ``ValueError: Layouts in checkpoint and embedding must have the same keys``.

tpuemb reports what happens in the worse of the two ways (a gate must not pass what one of
them breaks), and says what the other does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tpuemb_cli.frontends.tensorflow.compat.stacks import StackVariable
from tpuemb_cli.model.words import ticked
from tpuemb_cli.pb.layouts import SparseCoreTableLayout

Layouts = dict[str, SparseCoreTableLayout]

RAISES = "raises"
MISPLACED = "misplaced"
FRESH = "fresh"
SLOTS_FRESH = "slots-fresh"
RESTORED = "restored"


class Outcome(NamedTuple):
    """What one way of restoring does to a stack: ``what`` (one of the constants above) and
    TensorFlow's words or tpuemb's account of it."""

    what: str
    why: str = ""


def keys_error(old: Layouts, new: Layouts) -> str | None:
    """TensorFlow's ValueError when the tables differ (``is_layouts_same``), else None."""
    if old.keys() == new.keys():
        return None
    return "ValueError: Layouts in checkpoint and embedding must have the same keys"


def _dims(shape: tuple[int, int]) -> str:
    return f"[{shape[0]},{shape[1]}]"


def placement(members: Sequence[SparseCoreTableLayout]) -> tuple[object, ...]:
    """What decides which value of a stacked variable is which row of which table."""
    return tuple(
        (
            m.table_name,
            tuple(m.unsharded_padded_shape),
            m.sparse_core_shard_row_offset,
            m.sparse_core_shard_rotation,
            m.num_sparse_cores,
            m.total_rows_per_sparse_core_shard,
        )
        for m in members
    )


def into_built(
    stored: StackVariable | None,
    stack: StackVariable,
    old: Sequence[SparseCoreTableLayout] | None,
    new: Sequence[SparseCoreTableLayout],
) -> Outcome:
    """Restoring into built variables: by name and shape."""
    if stored is None:
        return Outcome(FRESH, f"the checkpoint has no variable `{stack.name}`")
    if stored.shape != stack.shape:
        return Outcome(
            RAISES,
            f"InvalidArgumentError: shape in shape_and_slice spec {_dims(stack.shape)} does not "
            f"match the shape stored in checkpoint: {_dims(stored.shape)}",
        )
    if old is not None and placement(old) != placement(new):
        return Outcome(MISPLACED, "the saved values are restored as they are")
    return Outcome(RESTORED)


def before_build(
    differs: bool,
    stored: StackVariable | None,
    stack: StackVariable,
    old: Layouts,
    new: Sequence[SparseCoreTableLayout],
) -> Outcome:
    """Restoring before the variables exist: through the checkpoint adapter when any layout
    differs (``differs``)."""
    if not differs:
        return Outcome(RESTORED) if stored is not None else Outcome(FRESH)
    if stored is None:
        return Outcome(FRESH, f"the checkpoint has no variable `{stack.name}`")
    resized = [
        m.table_name
        for m in new
        if m.table_name in old
        and tuple(old[m.table_name].unsharded_shape) != tuple(m.unsharded_shape)
    ]
    if resized:
        if not _rows_add_up(new, old) or any(
            old[m.table_name].unsharded_shape[1] != m.unsharded_shape[1] for m in new
        ):
            return Outcome(
                RAISES,
                "the checkpoint adapter pads each table's saved rows by its new padding, so "
                f"{_names(resized)} no longer fill the stack (ValueError: the initial value's "
                "shape is not compatible with the explicitly supplied `shape` argument, or "
                "InvalidArgumentError from ConcatOp)",
            )
        return Outcome(
            MISPLACED,
            "the checkpoint adapter pads each table's saved rows by its new padding, so the "
            f"rows of {_names(resized)} and of every table after it in the stack are shifted",
        )
    if stack.slots:
        return Outcome(
            SLOTS_FRESH,
            "the checkpoint adapter re-lays out the table from the saved layouts, but files each "
            "slot variable's entry under its stack's name, so its slot variables "
            f"({_names(stack.slots)}) start from their initializers",
        )
    return Outcome(RESTORED)


def _names(names: Sequence[str]) -> str:
    return ticked(names)


def _rows_add_up(new: Sequence[SparseCoreTableLayout], old: Layouts) -> bool:
    """Whether ``_shard_from_cpu_to_sc`` gives each partition's shard the rows its variable
    has: each member's saved rows, padded by its new padding, dealt out from its rotation over
    the SparseCores, ``len(range(start, rows, N))`` rows to each."""
    first = new[0]
    cores, partitions = first.num_sparse_cores, first.num_partitions
    if cores < 1 or partitions < 1 or cores % partitions:
        return False
    rows = [
        old[m.table_name].unsharded_shape[0] + m.unsharded_padded_shape[0] - m.unsharded_shape[0]
        for m in new
    ]
    # Over all SparseCores each member's rows are dealt out once: unequal sums fail somewhere.
    if sum(rows) != sum(m.unsharded_padded_shape[0] for m in new):
        return False
    per_core = cores // partitions
    want = first.total_rows_per_sparse_core_shard * per_core
    for partition in range(partitions):
        total = 0
        for core in range(partition * per_core, (partition + 1) * per_core):
            for member, count in zip(new, rows, strict=True):
                start = (core + cores - member.sparse_core_shard_rotation) % cores
                total += max(0, -(-(count - start) // cores))
        if total != want:
            return False
    return True
