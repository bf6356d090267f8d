"""What a change of a TorchRec spec does to a checkpoint its fused collection saved under the old
one (``tpuemb diff OLD NEW``), as torch's and torchrec 1.9.2's loading does it:

- on the same topology, ``SparseCoreLoadPlanner`` is ``DefaultLoadPlanner``: each key of the new
  state dict is read from the checkpoint's by name (a key it lacks raises ``Missing key in
  checkpoint state_dict``, another shape ``Size mismatch between saved ... and current``:
  ``create_default_local_load_plan`` in torch's ``distributed/checkpoint/default_planner.py``);
  keys only the checkpoint has are left unread; a stack that keeps its name and shape is restored
  as it is, wherever the new layout puts its tables' rows;
- across topologies (another world size or ``num_sc_per_device``) it un-MOD-shards each stack the
  checkpoint's stacked configs name and re-shards it for the new layout (``commit_tensor``,
  ``checkpoint/planners.py``) -- and that layout is not the fused module's (``layout_defect``).
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.frontends.torchrec.compat.state import (
    LEARNING_RATES,
    MODULES,
    PLANNERS,
    STACKING,
    UTILS,
    CollectionState,
    StackState,
    TableLayout,
    names,
    shape_text,
)
from tpuemb_cli.model.paths import FieldPath

MISSING = "DCP's load raises `Missing key in checkpoint state_dict`"
PARTIAL = (
    "or load with `SparseCoreLoadPlanner(allow_partial_load=True)`, which leaves what the "
    "checkpoint lacks at its initial values"
)
# How the fused module's own functions carry tables to another stacking on the same topology:
# there its read and its write undo each other table by table, whichever layout the SparseCore
# kernel uses, as long as a table keeps its padded size.
CARRY = (
    "carry the tables across with the module's own functions: load the checkpoint into the old "
    "collection on its own topology, take `get_unstacked_table_weights()`, and give them to the "
    "new collection's `set_unstacked_table_weights(...)` on the same topology (both in "
    f"{MODULES}; their `unshard_and_unstack_tables` / `stack_and_shard_tables` in {STACKING}): "
    "they undo each other for a table whose padded size stays"
)


def layout_defect(stacks: list[str], old_shards: int, new_shards: int) -> str:
    """The library's defect, for a load that reshards ``stacks``: the checkpoint code unshards
    and reshards by id modulo the shards, the fused module lays each SparseCore's rows out as
    one block."""
    return (
        f"the load planner reshards stack{'s' if len(stacks) != 1 else ''} {names(stacks)} "
        f"({old_shards} -> {new_shards} SparseCores in all) by id modulo the shards "
        "(`checkpoint/utils.reverse_mod_shard` via `unstack_and_unshard_global_tensor`, then "
        f"`mod_shard`, {UTILS}), while the fused module lays each SparseCore's rows out as one "
        "contiguous block (`table_stacking.stack_and_shard_tables`: `view(num_sc_per_device, "
        f"chunk, dim)`, {STACKING}): read back with the module's own "
        "`get_unstacked_table_weights()`, the rows come back permuted (on 2 SparseCores, row 1 "
        "of a 16-row table holds row 8's values), and rows that land in padding are lost"
    )


# What to do about it: which of the two layouts the SparseCore kernel uses decides which is wrong.
RESHARD_HELP = (
    "the planner's layout and the module's disagree, and the one the SparseCore kernel uses is "
    "right: the input preprocessor's `col_offset = row_offset_in_shard * N` and `col_shift = "
    "rotation` (datasets/input_preprocessing.py) are the modulo convention -- then the planner "
    "is right and the module's `get_unstacked_table_weights` / `set_unstacked_table_weights` "
    "are the permuted side; if the kernel lays rows out in blocks, carry the tables with "
    "`get_unstacked_table_weights()` on the saved topology and `set_unstacked_table_weights(...)`"
    " on the new one. Either way, check a few known ids after loading before training on"
)


def table_causes(old: StackState, new: StackState) -> list[str]:
    """What differs between two layouts of a stack, table by table."""
    causes = []
    before = {t.name: t for t in old.tables}
    now = {t.name: t for t in new.tables}
    joined = [n for n in now if n not in before]
    left = [n for n in before if n not in now]
    if joined:
        causes.append(f"joined by {names(joined)}")
    if left:
        causes.append(f"left by {names(left)}")
    for table_name, table in now.items():
        was = before.get(table_name)
        if was is not None:
            causes.extend(_table_changes(was, table))
    if not causes and [t.name for t in old.tables] != [t.name for t in new.tables]:
        causes.append("its tables in another order")
    return causes


def _table_changes(was: TableLayout, now: TableLayout) -> Iterator[str]:
    for field in (
        "num_embeddings",
        "embedding_dim",
        "padded_vocab_size",
        "padded_embedding_dim",
        "row_offset_in_shard",
        "shard_rotation",
    ):
        before, after = getattr(was, field), getattr(now, field)
        if before != after:
            yield f"`{now.name}`: {field} {before} -> {after}"


def _why(causes: list[str]) -> str:
    return f" ({'; '.join(causes)})" if causes else ""


def spec_changes(old: CollectionState, new: CollectionState) -> Iterator[Change]:
    """Every change of the fused collection ``old`` -> ``new``, for a checkpoint it saved."""
    cross = (old.devices, old.per_device) != (new.devices, new.per_device)
    if old.weights != new.weights:
        yield Change(
            "restore-error",
            None,
            ("collection", "type"),
            old.weights,
            new.weights,
            f"restoring fails: the collection's stacks are saved as `{old.weights}.<stack>."
            f"weight`, the new collection's are `{new.weights}.<stack>.weight` ({MISSING})",
            help="keep the collection's type, or rename the checkpoint's keys",
        )
        return
    if cross:
        yield _topology(old, new)
    renamed = _renames(old, new)
    resharded: list[str] = []
    relaid: list[str] = []  # what the resharding re-lays out, table by table
    for stack in new.stacks:
        stored = old.stack_named(stack.name)
        if stored is not None:
            if cross:
                change = _resharded(old, new, stored, stack)
                if change is not None:
                    yield change
                else:
                    resharded.append(stack.name)
                    relaid.extend(f"`{stack.name}`: {c}" for c in table_causes(stored, stack))
            else:
                yield from _same_topology(stored, stack)
        elif stack.name in renamed:
            yield _renamed(new, renamed[stack.name], stack)
        else:
            yield _gained(old, new, stack)
    if resharded and max(old.shards, new.shards) > 1:
        yield Change(
            "silent-reinit",
            None,
            _topology_path(old, new),
            None,
            None,
            f"restores without an error, but {layout_defect(resharded, old.shards, new.shards)}"
            + (f" (the tables re-laid out: {'; '.join(relaid)})" if relaid else ""),
            help=RESHARD_HELP,
        )
    kept = {s.name for s in new.stacks} | set(renamed.values())
    lost = [stack for stack in old.stacks if stack.name not in kept]
    for stack in lost:
        yield _lost(old, new, stack)
    yield from _tables_gone(old, new, {stack.name for stack in lost})
    yield from _optimizer(old, new)


def _topology_path(old: CollectionState, new: CollectionState) -> FieldPath:
    field = "global_device_count" if old.devices != new.devices else "num_sc_per_device"
    return ("collection", field)


def _topology(old: CollectionState, new: CollectionState) -> Change:
    return Change(
        "topology-change",
        None,
        _topology_path(old, new),
        f"{old.devices} x {old.per_device}",
        f"{new.devices} x {new.per_device}",
        f"devices x SparseCores a device {old.devices} x {old.per_device} -> {new.devices} x "
        f"{new.per_device}: `SparseCoreLoadPlanner` loads across topologies only when the "
        "checkpoint's `planner_data['sparsecore']` holds the old stacked configs (saved by "
        "`SparseCoreSavePlanner(stacked_configs=collection.stacked_configs)`) and it is given "
        "the new ones (`SparseCoreLoadPlanner(num_sc_per_device=..., "
        "stacked_configs=collection.stacked_configs)`); without them it unshards each stack as "
        f"one table and cannot restore it correctly ({PLANNERS})",
    )


def _same_topology(stored: StackState, stack: StackState) -> Iterator[Change]:
    causes = table_causes(stored, stack)
    if stored.shape != stack.shape:
        field = "stack_num_embeddings" if stored.rows != stack.rows else "stack_embedding_dim"
        yield Change(
            "restore-error",
            stack.name,
            stack.path,
            shape_text(stored.shape),
            shape_text(stack.shape),
            f"restoring fails: the checkpoint's stack `{stack.name}` has shape "
            f"{shape_text(stored.shape)}, the new one {shape_text(stack.shape)}{_why(causes)} "
            f"(DCP's load raises `Size mismatch between saved ... and current` for its "
            f"{field})",
            help=CARRY,
        )
    else:
        change = relayout(stored, stack, "its rows are laid out for another layout")
        if change is not None:
            yield change


_SIZES = ("num_embeddings", "embedding_dim")


def relayout(stored: StackState, stack: StackState, said: str) -> Change | None:
    """A stack restored as it is (the same shape, the same topology) under another layout
    (``said``: who says so): a silent-reinit where a table's rows move (another table set or
    order, padded size, offset or rotation); a training-change where a table only grows or
    shrinks within its padding; None where nothing differs."""
    causes = table_causes(stored, stack)
    if not causes:
        return None
    before = [(t.name, *(getattr(t, f) for f in _MOVES)) for t in stored.tables]
    now = [(t.name, *(getattr(t, f) for f in _MOVES)) for t in stack.tables]
    if before != now:
        return Change(
            "silent-reinit",
            stack.name,
            stack.path,
            None,
            None,
            f"the checkpoint's stack `{stack.name}` restores (same shape "
            f"{shape_text(stack.shape)}), but {said}{_why(causes)}: on the same topology the "
            "load copies the stack as it is, and each table reads other rows' values",
            help=CARRY,
        )
    return Change(
        "training-change",
        stack.name,
        stack.path,
        None,
        None,
        f"the checkpoint's stack `{stack.name}` restores as it is (same shape and layout), and "
        f"its tables change size within their padding{_why(causes)}: a table's new rows or "
        "columns start from the saved padding's values, not its initializer",
    )


_MOVES = ("padded_vocab_size", "padded_embedding_dim", "row_offset_in_shard", "shard_rotation")


def _resharded(
    old: CollectionState, new: CollectionState, stored: StackState, stack: StackState
) -> Change | None:
    """A stack the planner reshards: a restore-error when a table joined it (the old stacked
    config's unstacking does not hold it), else None (its rows are permuted: one change for
    all such stacks)."""
    joined = [t for t in stack.table_names if t not in stored.table_names]
    if not joined:
        return None
    return Change(
        "restore-error",
        stack.name,
        stack.path,
        None,
        None,
        f"restoring fails: the load planner reshards stack `{stack.name}` table by table, and "
        f"{names(joined)} {'is' if len(joined) == 1 else 'are'} in no table of the "
        f"checkpoint's stack `{stack.name}` (`stack_and_shard_global_tensor` raises KeyError, "
        f"{UTILS})",
        help=CARRY,
    )


def _renames(old: CollectionState, new: CollectionState) -> dict[str, str]:
    """New stack -> the old stack it is, where only the name changed (the same tables)."""
    gone = {s.table_names: s.name for s in old.stacks if new.stack_named(s.name) is None}
    return {
        s.name: gone[s.table_names]
        for s in new.stacks
        if old.stack_named(s.name) is None and s.table_names in gone
    }


def _renamed(new: CollectionState, was: str, stack: StackState) -> Change:
    return Change(
        "restore-error",
        stack.name,
        stack.path,
        was,
        stack.name,
        f"restoring fails: stack `{was}` is renamed `{stack.name}` (tables "
        f"{names(stack.table_names)}), and the checkpoint's keys are named by stack "
        f"(`{new.weight_key(was)}`, not `{new.weight_key(stack.name)}`): {MISSING}",
        help=(
            f"keep the name `{was}` (stack_table_name, or stack_tables' stack_table_name), or "
            f"rename the checkpoint's keys of `{was}` to `{stack.name}`"
        ),
    )


def _whence(old: CollectionState, table: str) -> str:
    stack = old.stack_of_table(table)
    return f"`{table}` (new)" if stack is None else f"`{table}` (from stack `{stack.name}`)"


def _gained(old: CollectionState, new: CollectionState, stack: StackState) -> Change:
    froms = ", ".join(_whence(old, t) for t in stack.table_names)
    return Change(
        "restore-error",
        stack.name,
        stack.path,
        None,
        stack.name,
        f"restoring fails: the new stack `{stack.name}` {shape_text(stack.shape)} (tables "
        f"{froms}) has no `{new.weight_key(stack.name)}` in the checkpoint: {MISSING}",
        help=f"{CARRY}; {PARTIAL}",
    )


def _lost(old: CollectionState, new: CollectionState, stack: StackState) -> Change:
    def whither(table: str) -> str:
        now = new.stack_of_table(table)
        return f"`{table}` (removed)" if now is None else f"`{table}` (now in `{now.name}`)"

    return Change(
        "orphaned-state",
        stack.name,
        stack.path,
        stack.name,
        None,
        f"the checkpoint's stack `{stack.name}` {shape_text(stack.shape)} (tables "
        f"{', '.join(whither(t) for t in stack.table_names)}) is no stack of the new collection: "
        "DCP's load reads only the new state dict's keys, and leaves its "
        f"`{old.weight_key(stack.name)}` unread",
        side="old",
    )


def _tables_gone(old: CollectionState, new: CollectionState, lost: set[str]) -> Iterator[Change]:
    """Each removed table of a stack that stays (a lost stack's message names its tables)."""
    for stack in old.stacks:
        if stack.name in lost:
            continue
        for table in stack.tables:
            if new.stack_of_table(table.name) is None:
                yield Change(
                    "orphaned-state",
                    table.name,
                    old.table_paths.get(table.name, stack.path),
                    table.name,
                    None,
                    f"table `{table.name}` ({table.num_embeddings} x {table.embedding_dim}, in "
                    f"stack `{stack.name}`) is removed: its rows in the checkpoint go nowhere",
                    side="old",
                )


def _optimizer(old: CollectionState, new: CollectionState) -> Iterator[Change]:
    path: FieldPath = ("collection", "optimizer")
    kept = [s.name for s in new.stacks if old.stack_named(s.name) is not None]
    gained = [slot for slot in new.slots if slot not in old.slots]
    lost = [slot for slot in old.slots if slot not in new.slots]
    if gained and kept:
        keys = [f"{slot}.{stack}" for stack in kept for slot in gained]
        shown = names(keys[:4]) + (", ..." if len(keys) > 4 else "")
        yield Change(
            "restore-error",
            None,
            (*path, "type"),
            old.optimizer,
            new.optimizer,
            f"restoring fails: {old.optimizer} -> {new.optimizer} adds the optimizer state "
            f"{names(gained)} of each stack ({shown}), which the checkpoint does not "
            f"hold: {MISSING}",
            help=(
                "load with `SparseCoreLoadPlanner(allow_partial_load=True)`: the new state then "
                f"starts at its initial values ({MODULES})"
            ),
        )
    if lost and kept:
        yield Change(
            "orphaned-state",
            None,
            (*path, "type"),
            old.optimizer,
            new.optimizer,
            f"{old.optimizer} -> {new.optimizer}: the checkpoint's optimizer state "
            f"{names(lost)} of each stack is read by nothing",
        )
    if old.optimizer != new.optimizer and not gained and not lost:
        yield Change(
            "training-change",
            None,
            (*path, "type"),
            old.optimizer,
            new.optimizer,
            f"the optimizer changes: {old.optimizer} -> {new.optimizer}",
        )
    for key in sorted(set(old.kwargs) | set(new.kwargs)):
        before, after = old.kwargs.get(key), new.kwargs.get(key)
        if before == after:
            continue
        lr = key in ("lr", "learning_rate")
        message = f"the optimizer's `{key}` changes: {_number(before)} -> {_number(after)}"
        if lr and kept:
            message += (
                f"; the checkpoint's `{LEARNING_RATES}.<stack>` hold the old learning rate, "
                "which the load restores over the new one: call `set_learning_rate(...)` after "
                "loading"
            )
        yield Change("training-change", None, (*path, "kwargs", key), before, after, message)


def _number(found: float | None) -> str:
    return "unset" if found is None else f"{found:g}"
