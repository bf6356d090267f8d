"""What a change of SparseCore spec does to a TPUEmbeddingV2 checkpoint written under the old
one, as ``tpuemb diff``'s changes: each stack by what restoring it does (``restore``: the worse of
restoring into built variables and restoring before they exist), a table added or removed by
TensorFlow's refusal, a stack left behind as orphaned state, the slot variables by name and the
optimizer as a training change. Placed in the spec's own terms: a table's changes at the table,
the SparseCores at ``topology``, the recorded batch size at the first feature.
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.frontends.tensorflow.compat import restore
from tpuemb_cli.frontends.tensorflow.compat.causes import (
    layout_causes,
    optimizer_path,
    path_of,
    shown,
)
from tpuemb_cli.frontends.tensorflow.compat.sides import SparseCoreSide
from tpuemb_cli.frontends.tensorflow.compat.stacks import StackVariable, layouts_by_stack
from tpuemb_cli.pb.layouts import SparseCoreTableLayout

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


def _tables_differ(old: SparseCoreSide, new: SparseCoreSide, refused: str) -> Iterator[Change]:
    before, now = old.state.layouts or {}, new.state.layouts or {}
    fails = f"(TensorFlow: {refused}, whether the embedding is built or not)"
    for name in now:
        if name not in before:
            yield Change(
                "restore-error",
                name,
                path_of(new, name) or (),
                None,
                name,
                f"restoring fails: table `{name}` is new, and TPUEmbeddingV2 restores only an "
                f"embedding of the checkpoint's tables {fails}",
                help=CARRY,
            )
    for name in before:
        if name not in now:
            where = path_of(old, name)
            yield Change(
                "restore-error",
                name,
                where if where is not None else (),
                name,
                None,
                f"restoring fails: the checkpoint's table `{name}` (in stack "
                f"{shown(before[name].stacked_table_name)}) is no table of the new spec {fails}",
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
    causes = layout_causes(old, new, members)
    path = causes[0][0] if causes else (path_of(new, stack.members[0]) or ())
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
            f"restoring stack {shown(stack.name)} ({shape}) fails{why}: {'; '.join(ways)}{other}",
            help=CARRY,
        )
    elif built.what == restore.FRESH:
        homes = sorted({str(before[m].stacked_table_name) for m in stack.members if m in before})
        held = ", ".join(shown(h) for h in homes)
        also = f"; their trained rows are in the checkpoint's {held}" if homes else ""
        yield Change(
            "silent-reinit",
            stack.name,
            path,
            None,
            stack.name,
            f"the checkpoint has no stack {shown(stack.name)} ({shape}, tables "
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
            f"the checkpoint's stack {shown(stack.name)} restores (same shape {shape}), but its "
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
            f"stack {shown(stack.name)} restores into the built embedding, but before it is built "
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


def _list(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _slots(new: SparseCoreSide, stack: StackVariable, stored: StackVariable) -> Iterator[Change]:
    """The slot variables, by name (``<stack>/<slot>``), and the optimizer that reads them."""
    if stack.slots is None or stored.slots is None:
        return
    path = optimizer_path(new, stack.members[0])
    for slot in stack.slots:
        if slot not in stored.slots:
            yield Change(
                "silent-reinit",
                stack.name,
                path,
                None,
                f"{stack.name}/{slot}",
                f"the checkpoint has no slot variable {shown(f'{stack.name}/{slot}')}: "
                f"{stack.optimizer}'s `{slot}` of stack {shown(stack.name)} starts from its "
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
                f"the checkpoint's slot variable {shown(f'{stack.name}/{slot}')} is restored "
                f"by nothing: {stack.optimizer} has no `{slot}`",
            )
    if stored.optimizer is not None and stored.optimizer != stack.optimizer:
        yield Change(
            "training-change",
            stack.name,
            path,
            stored.optimizer,
            stack.optimizer,
            f"stack {shown(stack.name)} trains with {stack.optimizer}, its checkpoint with "
            f"{stored.optimizer}"
            + (
                f": {_list([s for s in stack.slots if s in stored.slots])} restore(s) by name "
                "from the other optimizer's state"
                if set(stack.slots) & set(stored.slots)
                else ""
            ),
        )
    elif stored.settings is not None and stored.settings != stack.settings:
        yield Change(
            "training-change",
            stack.name,
            path,
            stored.settings,
            stack.settings,
            f"stack {shown(stack.name)} restores, and trains on with other {stack.optimizer} "
            f"settings: {stored.settings} -> {stack.settings}",
        )


def _left(old: SparseCoreSide, new: SparseCoreSide, stored: StackVariable) -> Change:
    now = [
        f"`{m}` (now in {shown(new.state.stack_of(m) or '')})"
        if new.state.stack_of(m)
        else f"`{m}`"
        for m in stored.members
    ]
    where = path_of(old, stored.members[0]) if stored.members else None
    slots = f" and its slot variables {_list(list(stored.slots))}" if stored.slots else ""
    return Change(
        "orphaned-state",
        stored.name,
        where if where is not None else (),
        stored.name,
        None,
        f"the checkpoint's stack {shown(stored.name)} ({stored.shape[0]} x "
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
