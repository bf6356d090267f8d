"""What a change of SparseCore spec does to a TPUEmbeddingV2 checkpoint written under the old
one, as ``tpuemb diff``'s changes: each stack by what restoring it does (``restore``: the worse of
restoring into built variables and restoring before they exist), a table added or removed by
TensorFlow's refusal, a stack left behind as orphaned state, the slot variables by name and the
optimizer as a training change. Placed in the spec's own terms: a table's changes at the table,
the SparseCores at ``topology``, the recorded batch size at the first feature.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.frontends.tensorflow.compat import restore
from tpuemb_cli.frontends.tensorflow.compat.stacks import (
    SparseCoreState,
    StackVariable,
    layouts_by_stack,
)
from tpuemb_cli.load import Document
from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.pb.layouts import SparseCoreTableLayout

LONG_NAME = 60
_V3 = "https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu"
CARRY = (
    "to carry trained tables across, restore the checkpoint under the old spec, unshard each "
    "table with its layout (`tpu_embedding_v3_utils.unshuffle_from_sc_to_cpu`, "
    f"{_V3}/tpu_embedding_v3_utils.py) and assign it into the new embedding's stacks"
)
BEFORE_BUILD = (
    "restore before the embedding is built (then TensorFlow re-lays out the saved stacks from "
    "their layouts: tpu_embedding_v3_checkpoint_adapter.py) and restore the slot variables "
    "yourself, or "
)


class SparseCoreSide(NamedTuple):
    """One side of a comparison: a SparseCore spec's checkpoint (``tables``: each table's path in
    the spec, ``first_feature``: the first flattened feature's), or a checkpoint's (``document``
    the spec it is compared with, ``tables`` empty: what it holds has no place of its own)."""

    document: Document
    state: SparseCoreState
    tables: dict[str, FieldPath]
    first_feature: FieldPath = ()
    topology: FieldPath = ("topology",)

    @property
    def file(self) -> str:
        return self.document.name

    def file_path(self, path: FieldPath) -> FieldPath:
        return path

    def place(self, path: FieldPath) -> tuple[FieldPath, Position | None]:
        source = self.document.source_map
        return path, source.position(path) if source is not None else None


def sparsecore_changes(old: SparseCoreSide, new: SparseCoreSide) -> Iterator[Change]:
    """Every change from ``old``'s checkpoint to ``new``'s."""
    before, now = old.state.layouts or {}, new.state.layouts or {}
    refused = restore.keys_error(before, now)
    if refused is not None:
        yield from _tables_differ(old, new, refused)
        return
    differs = any(before[name] != layout for name, layout in now.items())
    old_stacks, new_stacks = layouts_by_stack(before), layouts_by_stack(now)
    for name, stack in new.state.stacks.items():
        stored = old.state.stacks.get(name)
        members = new_stacks.get(name, [])
        built = restore.into_built(stored, stack, old_stacks.get(name), members)
        early = restore.before_build(differs, stored, stack, before, members)
        yield from _stack(old, new, stack, stored, built, early, members)
        if stored is not None and built.what != restore.RAISES:
            yield from _slots(new, stack, stored)
    for name, stored in old.state.stacks.items():
        if name not in new.state.stacks:
            yield _left(old, new, stored)
    yield from _topology(new, before, now)


def _path(side: SparseCoreSide, table: str, *field: str | int) -> FieldPath | None:
    found = side.tables.get(table)
    return (*found, *field) if found is not None else None


def _tables_differ(old: SparseCoreSide, new: SparseCoreSide, refused: str) -> Iterator[Change]:
    before, now = old.state.layouts or {}, new.state.layouts or {}
    fails = f"(TensorFlow: {refused}, whether the embedding is built or not)"
    for name in now:
        if name not in before:
            yield Change(
                "restore-error",
                name,
                _path(new, name) or (),
                None,
                name,
                f"restoring fails: table `{name}` is new, and TPUEmbeddingV2 restores only an "
                f"embedding of the checkpoint's tables {fails}",
                help=CARRY,
            )
    for name in before:
        if name not in now:
            where = _path(old, name)
            yield Change(
                "restore-error",
                name,
                where if where is not None else (),
                name,
                None,
                f"restoring fails: the checkpoint's table `{name}` (in stack "
                f"{_shown(before[name].stacked_table_name)}) is no table of the new spec {fails}",
                side="old" if where is not None else "new",
                help=CARRY,
            )


def _stack(
    old: SparseCoreSide,
    new: SparseCoreSide,
    stack: StackVariable,
    stored: StackVariable | None,
    built: restore.Outcome,
    early: restore.Outcome,
    members: list[SparseCoreTableLayout],
) -> Iterator[Change]:
    before = old.state.layouts or {}
    causes = _causes(old, new, members)
    path = causes[0][0] if causes else (_path(new, stack.members[0]) or ())
    why = f" ({'; '.join(text for _, text in causes)})" if causes else ""
    shape = f"{stack.shape[0]} x {stack.shape[1]}"
    if restore.RAISES in (built.what, early.what):
        ways = []
        if built.what == restore.RAISES:
            ways.append(f"into the built embedding: {built.why}")
        if early.what == restore.RAISES:
            ways.append(f"before it is built: {early.why}")
        other = _other(
            built if early.what == restore.RAISES else early, built.what != restore.RAISES
        )
        old_shape = f"{stored.shape[0]} x {stored.shape[1]}" if stored is not None else "none"
        yield Change(
            "restore-error",
            stack.name,
            path,
            old_shape,
            shape,
            f"restoring stack {_shown(stack.name)} ({shape}) fails{why}: {'; '.join(ways)}{other}",
            help=CARRY,
        )
    elif built.what == restore.FRESH:
        homes = sorted({str(before[m].stacked_table_name) for m in stack.members if m in before})
        held = ", ".join(_shown(h) for h in homes)
        also = f"; their trained rows are in the checkpoint's {held}" if homes else ""
        yield Change(
            "silent-reinit",
            stack.name,
            path,
            None,
            stack.name,
            f"the checkpoint has no stack {_shown(stack.name)} ({shape}, tables "
            f"{_list(stack.members)}){why}: restoring gives it nothing, so its tables and slots "
            f"start from their initializers{also}",
            help=CARRY,
        )
    elif restore.MISPLACED in (built.what, early.what):
        ways = []
        if built.what == restore.MISPLACED:
            ways.append(
                "into the built embedding, the saved values are restored as they are, so each "
                "table whose rows moved reads other rows"
            )
        if early.what == restore.MISPLACED or early.what == restore.SLOTS_FRESH:
            ways.append(f"before it is built, {early.why}")
        yield Change(
            "silent-reinit",
            stack.name,
            path,
            None,
            None,
            f"the checkpoint's stack {_shown(stack.name)} restores (same shape {shape}), but its "
            f"tables are laid out otherwise{why}: {'; '.join(ways)}",
            help=(BEFORE_BUILD if early.what != restore.MISPLACED else "") + CARRY,
        )
    elif early.what == restore.SLOTS_FRESH:
        yield Change(
            "silent-reinit",
            stack.name,
            path,
            None,
            None,
            f"stack {_shown(stack.name)} restores into the built embedding, but before it is built "
            f"the layouts differ{why or ' (in another stack)'}, and {early.why}",
            help="restore after the embedding is built (the stacks keep their layout), or "
            "acknowledge that the slots restart",
        )


def _other(outcome: restore.Outcome, built: bool) -> str:
    way = "into the built embedding" if built else "before it is built"
    if outcome.what == restore.RESTORED:
        return f" (restoring {way} succeeds)"
    if outcome.what == restore.MISPLACED:
        return f" (restoring {way} succeeds, but {outcome.why})"
    if outcome.what == restore.SLOTS_FRESH:
        return f" (restoring {way}: {outcome.why})"
    return ""


def _shown(name: str) -> str:
    """A stack's name quoted, its middle elided when it is long (a stack of many tables)."""
    if len(name) <= LONG_NAME:
        return f"`{name}`"
    return f"`{name[:24]}...{name[-16:]}` ({len(name)} characters)"


def _list(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _causes(
    old: SparseCoreSide, new: SparseCoreSide, members: list[SparseCoreTableLayout]
) -> list[tuple[FieldPath, str]]:
    """What changed in the layouts of a stack's members, each at its place in the new spec,
    the most telling first (a table's size, then the SparseCores, then its place)."""
    before = old.state.layouts or {}
    found: list[tuple[int, FieldPath, str]] = []
    for member in members:
        name = member.table_name
        was = before.get(name)
        table = _path(new, name) or ()
        if was is None:
            continue
        if was.stacked_table_name != member.stacked_table_name:
            found.append((1, table, f"`{name}` was in stack {_shown(was.stacked_table_name)}"))
        for at, field, what in ((0, "vocabulary_size", "rows"), (1, "dim", "dimension")):
            if was.unsharded_shape[at] != member.unsharded_shape[at]:
                found.append(
                    (
                        0,
                        (*table, field),
                        f"`{name}`: {what} {was.unsharded_shape[at]} -> "
                        f"{member.unsharded_shape[at]} (padded "
                        f"{was.unsharded_padded_shape[at]} -> {member.unsharded_padded_shape[at]})",
                    )
                )
        if was.num_sparse_cores != member.num_sparse_cores:
            found.append(
                (
                    2,
                    new.topology,
                    f"SparseCores in all {was.num_sparse_cores} -> {member.num_sparse_cores}",
                )
            )
        elif was.unsharded_padded_shape != member.unsharded_padded_shape and (
            was.unsharded_shape == member.unsharded_shape
        ):
            found.append(
                (
                    3,
                    table,
                    f"`{name}`: padded shape {list(was.unsharded_padded_shape)} -> "
                    f"{list(member.unsharded_padded_shape)}",
                )
            )
        for field, label in (
            ("sparse_core_shard_row_offset", "row offset in each shard"),
            ("sparse_core_shard_rotation", "rotation"),
        ):
            if getattr(was, field) != getattr(member, field):
                found.append(
                    (
                        4,
                        table,
                        f"`{name}`: {label} {getattr(was, field)} -> {getattr(member, field)}",
                    )
                )
        for field, label in (
            ("per_sparse_core_batch_size", "recorded batch size per SparseCore"),
            ("num_features", "recorded feature count"),
        ):
            if getattr(was, field) != getattr(member, field):
                found.append(
                    (
                        5,
                        new.first_feature or table,
                        f"`{name}`: {label} {getattr(was, field)} -> {getattr(member, field)} "
                        "(the first feature's table records them)",
                    )
                )
    found.sort(key=lambda cause: cause[0])
    unique = dict.fromkeys((path, text) for _, path, text in found)
    return list(unique)


def _slots(new: SparseCoreSide, stack: StackVariable, stored: StackVariable) -> Iterator[Change]:
    """The slot variables, by name (``<stack>/<slot>``), and the optimizer that reads them."""
    if stack.slots is None or stored.slots is None:
        return
    path = _path(new, stack.members[0], "optimizer") or ()
    for slot in stack.slots:
        if slot not in stored.slots:
            yield Change(
                "silent-reinit",
                stack.name,
                path,
                None,
                f"{stack.name}/{slot}",
                f"the checkpoint has no slot variable {_shown(f'{stack.name}/{slot}')}: "
                f"{stack.optimizer}'s `{slot}` of stack {_shown(stack.name)} starts from its "
                "initializer",
            )
    for slot in stored.slots:
        if slot not in stack.slots:
            yield Change(
                "orphaned-state",
                stack.name,
                path,
                f"{stack.name}/{slot}",
                None,
                f"the checkpoint's slot variable {_shown(f'{stack.name}/{slot}')} is restored "
                f"by nothing: {stack.optimizer} has no `{slot}`",
            )
    if stored.optimizer is not None and stored.optimizer != stack.optimizer:
        yield Change(
            "training-change",
            stack.name,
            path,
            stored.optimizer,
            stack.optimizer,
            f"stack {_shown(stack.name)} trains with {stack.optimizer}, its checkpoint with "
            f"{stored.optimizer}"
            + (
                f": {_list([s for s in stack.slots if s in stored.slots])} restore(s) by name "
                "from the other optimizer's state"
                if set(stack.slots) & set(stored.slots)
                else ""
            ),
        )


def _left(old: SparseCoreSide, new: SparseCoreSide, stored: StackVariable) -> Change:
    now = [
        f"`{m}` (now in {_shown(new.state.stack_of(m) or '')})"
        if new.state.stack_of(m)
        else f"`{m}`"
        for m in stored.members
    ]
    where = _path(old, stored.members[0]) if stored.members else None
    slots = f" and its slot variables {_list(list(stored.slots))}" if stored.slots else ""
    return Change(
        "orphaned-state",
        stored.name,
        where if where is not None else (),
        stored.name,
        None,
        f"the checkpoint's stack {_shown(stored.name)} ({stored.shape[0]} x "
        f"{stored.shape[1]}, tables {', '.join(now)}){slots} is no stack of the new spec: "
        "restoring into the built embedding restores nothing from it",
        side="old" if where is not None else "new",
    )


def _topology(
    new: SparseCoreSide,
    before: dict[str, SparseCoreTableLayout],
    now: dict[str, SparseCoreTableLayout],
) -> Iterator[Change]:
    was = sorted({layout.num_sparse_cores for layout in before.values()})
    is_ = sorted({layout.num_sparse_cores for layout in now.values()})
    if was and is_ and was != is_:
        shown = ", ".join(map(str, was)), ", ".join(map(str, is_))
        yield Change(
            "topology-change",
            None,
            new.topology,
            shown[0],
            shown[1],
            f"SparseCores in all (partitions x SparseCores per chip) change from {shown[0]} to "
            f"{shown[1]}: every table is padded and dealt out anew over them (the stacks' "
            "changes say what restoring does)",
        )
