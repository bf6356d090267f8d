"""What a change of jax-tpu-embedding's stacked layout (two ``EmbeddingSpecProto``) does to a
checkpoint written under the old one (``jax_entries`` says what the checkpoint holds).

A checkpoint entry is a stack, named by ``stack_name``: Orbax restores the new variables' tree
from it by key and shape and refuses any mismatch (a stack gained, lost or renamed, another
shape, another number of slots), so each of those is a ``restore-error``. An entry that keeps its
name and shape while its layout changes (the SparseCore count, a table's offset or rotation,
another table of the same size) restores without a word and gives each table other rows: a
``silent-reinit``. The library's own functions carry the state across such changes
(``CARRY``; docs/jax.md says what each does and what it does not).
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.frontends.jax.compat.entries import JaxSide, Key, StackVariables, keyed
from tpuemb_cli.frontends.jax.compat.training import training_changes
from tpuemb_cli.load.orbax import TREE_MISMATCH, shape_mismatch
from tpuemb_cli.model.words import plural

_LIB = "https://github.com/jax-ml/jax-tpu-embedding/blob"
# How a user moves a checkpoint's tables from one stacked layout to another, with the library.
CARRY = (
    "carry the state across with the library: unstack each array of the old entries (the table "
    "and each slot) with `table_stacking.unstack_and_unshard_stacked_tables(stacked, old_proto)` "
    "and restack with `table_stacking.stack_and_shard_feature_tables(tables, new_proto)` "
    f"(0.1.0: {_LIB}/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py) -- with each "
    "stack's `table_specs` of new_proto listed in `row_offset_in_shard` order first: it "
    "concatenates them in the proto's order, which `create_proto_from_feature_specs` gives by "
    "feature name, while the variables place them by offset -- or, for an "
    "NNX checkpoint saved with its EmbeddingSpecProto, "
    "`checkpoint_utils.convert_cross_topology_checkpoint` (0.2.0: "
    f"{_LIB}/v0.2.0/jax_tpu_embedding/sparsecore/lib/flax/nnx/checkpoint_utils.py)"
)


def _shape(shape: tuple[int, int]) -> str:
    return f"({shape[0]}, {shape[1]})"


def _names(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names) or "none"


def jax_changes(old: JaxSide, new: JaxSide) -> Iterator[Change]:
    """Every change of the stacked layout ``old`` -> ``new``."""
    old_by_name, new_by_name = keyed(old.stacks), keyed(new.stacks)
    renamed = _renames(old_by_name, new_by_name)
    for key, stack in new_by_name.items():
        stored = old_by_name.get(key)
        if stored is not None:
            yield from _same_name(old, new, stored, stack)
        elif key in renamed:
            yield _renamed(old_by_name[renamed[key]], stack)
        else:
            yield _gained(old, stack)
    gone = set(old_by_name) - set(new_by_name) - set(renamed.values())
    for key, stack in old_by_name.items():
        if key in gone:
            yield _lost(new, stack)
    yield from _tables_gone(old, new)
    yield from _topology(old, new)


def _renames(old: dict[Key, StackVariables], new: dict[Key, StackVariables]) -> dict[Key, Key]:
    """New stack -> the old stack it is, where only the name changed (same tables, shape and
    layout)."""
    gone = {stack.layout: key for key, stack in old.items() if key not in new}
    return {
        key: gone[stack.layout]
        for key, stack in new.items()
        if key not in old and stack.layout in gone
    }


def _same_name(
    old: JaxSide, new: JaxSide, stored: StackVariables, stack: StackVariables
) -> Iterator[Change]:
    causes = _causes(old, new, stored, stack)
    why = f" ({'; '.join(causes)})" if causes else ""
    if stored.shape != stack.shape:
        field = "stack_vocab_size" if stored.rows != stack.rows else "stack_embedding_dim"
        yield Change(
            "restore-error",
            stack.name,
            (*stack.path, field),
            _shape(stored.shape),
            _shape(stack.shape),
            f"restoring fails: the checkpoint's stack `{stack.name}` has shape "
            f"{_shape(stored.shape)}, the new one {_shape(stack.shape)}{why} "
            f"({shape_mismatch(stack.shape, stored.shape)})",
            help=_carry(old, new, stack),
        )
    elif stored.layout != stack.layout:
        cores = stored.num_sparsecores != stack.num_sparsecores
        yield Change(
            "silent-reinit",
            stack.name,
            (*stack.path, "num_sparsecores") if cores else stack.path,
            None,
            None,
            f"the checkpoint's stack `{stack.name}` restores (same shape "
            f"{_shape(stack.shape)}), but its values are laid out for another layout{why}: "
            "each table's rows read other rows' values",
            help=_carry(old, new, stack),
        )
    yield from _slots(stored, stack)
    yield from training_changes(stored, stack)


def _causes(old: JaxSide, new: JaxSide, stored: StackVariables, stack: StackVariables) -> list[str]:
    """What changed the entry's shape or layout, in the user's terms."""
    causes = []
    if stored.num_sparsecores != stack.num_sparsecores:
        causes.append(
            f"SparseCores in all {stored.num_sparsecores} -> {stack.num_sparsecores}: each "
            "table's rows are padded to a multiple of 8 x that and dealt out over them"
        )
    before, now = keyed(stored.tables), keyed(stack.tables)
    joined = [key[0] for key in now if key not in before]
    left = [key[0] for key in before if key not in now]
    if joined:
        froms = [_whence(old, name) for name in joined]
        causes.append(f"joined by {', '.join(froms)}")
    if left:
        causes.append(f"left by {', '.join(_whither(new, name) for name in left)}")
    for (name, nth), table in now.items():
        was = before.get((name, nth))
        if was is None:
            continue
        causes.extend(
            _resized(name, what, before_size, now_size, padded)
            for what, before_size, now_size, padded in (
                ("rows", was.vocab, table.vocab, (was.padded_vocab, table.padded_vocab)),
                ("dimension", was.dim, table.dim, (was.padded_dim, table.padded_dim)),
            )
            if before_size != now_size or padded[0] != padded[1]
        )
        for field, was_at, now_at in (
            ("row_offset_in_shard", was.row_offset_in_shard, table.row_offset_in_shard),
            ("shard_rotation", was.shard_rotation, table.shard_rotation),
        ):
            if was_at != now_at:
                causes.append(f"`{name}`: {field} {was_at} -> {now_at}")
    return causes


def _resized(name: str, what: str, was: int, now: int, padded: tuple[int, int]) -> str:
    if was == now:
        return f"`{name}`: padded {what} {padded[0]} -> {padded[1]}"
    return f"`{name}`: {what} {was} -> {now} (padded {padded[0]} -> {padded[1]})"


def _whence(old: JaxSide, name: str) -> str:
    table = old.table_named(name)
    if table is None:
        return f"`{name}` (new)"
    return f"`{name}` (from stack `{old.stacks[table.stack].name}`)"


def _whither(new: JaxSide, name: str) -> str:
    table = new.table_named(name)
    if table is None:
        return f"`{name}` (removed)"
    return f"`{name}` (now in stack `{new.stacks[table.stack].name}`)"


def _carry(old: JaxSide, new: JaxSide, stack: StackVariables) -> str:
    """``CARRY``, with what the library's restacking does to this stack's tables."""
    notes = table_notes(old, new, stack)
    extra = f" ({'; '.join(notes)})" if notes else ""
    return CARRY + extra


def table_notes(old: JaxSide, new: JaxSide, stack: StackVariables) -> list[str]:
    """What the library's restacking (and its converter) does not do for this stack's tables:
    a new table's values, a grown or shrunk one."""
    notes = []
    for table in stack.tables:
        was = old.table_named(table.name)
        if was is None:
            notes.append(
                f"`{table.name}` is new: give stack_and_shard_feature_tables its initial values"
            )
            continue
        if table.vocab > was.vocab or table.dim > was.dim:
            notes.append(
                f"`{table.name}` grows: stack_and_shard_feature_tables pads it with zeros, so "
                "its new rows or columns start at 0, not from its initializer, and "
                "convert_cross_topology_checkpoint does not resize it"
            )
        if table.vocab < was.vocab or table.dim < was.dim:
            notes.append(
                f"`{table.name}` shrinks: slice its unstacked array to ({table.vocab}, "
                f"{table.dim}) first (stack_and_shard_feature_tables refuses one larger "
                "than its padded size)"
            )
    return notes


def _renamed(stored: StackVariables, stack: StackVariables) -> Change:
    return Change(
        "restore-error",
        stack.name,
        (*stack.path, "stack_name"),
        stored.name,
        stack.name,
        f"restoring fails: stack `{stored.name}` is renamed `{stack.name}` (same tables, shape "
        f"{_shape(stack.shape)} and layout), and the checkpoint's entries are keyed by stack "
        f"name ({TREE_MISMATCH})",
        help=(
            f"keep the name `{stored.name}` (an explicit stack name), or rename the entry "
            f"`{stored.name}` to `{stack.name}` in the restored tree: the arrays are the same"
        ),
    )


def _gained(old: JaxSide, stack: StackVariables) -> Change:
    froms = ", ".join(_whence(old, name) for name in stack.table_names)
    return Change(
        "restore-error",
        stack.name,
        (*stack.path, "stack_name"),
        None,
        stack.name,
        f"restoring fails: the new stack `{stack.name}` {_shape(stack.shape)} (tables {froms}) "
        f"has no entry in the checkpoint ({TREE_MISMATCH})",
        help=CARRY,
    )


def _lost(new: JaxSide, stack: StackVariables) -> Change:
    whither = ", ".join(_whither(new, name) for name in stack.table_names)
    return Change(
        "restore-error",
        stack.name,
        (*stack.path, "stack_name"),
        stack.name,
        None,
        f"restoring fails: the checkpoint's stack `{stack.name}` {_shape(stack.shape)} (tables "
        f"{whither}) is no stack of the new layout ({TREE_MISMATCH})",
        side="old",
        help=CARRY,
    )


def _tables_gone(old: JaxSide, new: JaxSide) -> Iterator[Change]:
    for stack in old.stacks:
        for table in stack.tables:
            if new.table_named(table.name) is None:
                yield Change(
                    "orphaned-state",
                    table.name,
                    (*table.path, "table_name"),
                    table.name,
                    None,
                    f"table `{table.name}` ({table.vocab} x {table.dim}, in stack "
                    f"`{stack.name}`) is gone: its rows in the checkpoint go nowhere, even "
                    "through the library's restacking",
                    side="old",
                )


def _slots(stored: StackVariables, stack: StackVariables) -> Iterator[Change]:
    """The slot arrays of the entry (only where both protos record the optimizer: 0.2.0).
    Orbax restores them by name: the library's slot namedtuples are saved as dict keys
    (``('user_item', 'slot', 'momentum')``, tests/data/orbax), so any other set of names -- Adam
    -> FTRL as much as Adagrad -> Adam -- refuses the tree."""
    before, now = stored.slots, stack.slots
    if before is None or now is None or before == now:
        return
    path = (*stack.tables[0].path, "optimizer") if stack.tables else stack.path
    yield Change(
        "restore-error",
        stack.name,
        path,
        stored.optimizer,
        stack.optimizer,
        f"restoring fails: {stored.optimizer} -> {stack.optimizer}: the checkpoint's stack "
        f"`{stack.name}` holds {plural(len(before), 'slot array')} ({_names(before)}), the "
        f"new optimizer {plural(len(now), 'slot array')} ({_names(now)}), and Orbax restores "
        f"slots by name ({TREE_MISMATCH})",
        help=(
            "restore the table without its slots and start the new slots from their "
            "initializers (restore the old tree as it was written, on CPU, and build the new "
            "optimizer's slots for the restacked table), or keep the optimizer"
        ),
    )


def _topology(old: JaxSide, new: JaxSide) -> Iterator[Change]:
    """The SparseCores in all (devices x SparseCores per device), once for the layout."""
    before = sorted({s.num_sparsecores for s in old.stacks})
    now = sorted({s.num_sparsecores for s in new.stacks})
    if before and now and before != now and new.stacks:
        shown = ", ".join(str(n) for n in before), ", ".join(str(n) for n in now)
        yield Change(
            "topology-change",
            None,
            (*new.stacks[0].path, "num_sparsecores"),
            shown[0],
            shown[1],
            f"SparseCores in all (devices x SparseCores per device) change from {shown[0]} to "
            f"{shown[1]}: every table's rows are padded and dealt out anew over them, so the "
            "checkpoint's entries do not hold the new layout (the stacks' changes say how)",
            help=CARRY,
        )
