"""A TorchRec spec against a PyTorch distributed checkpoint on disk (``tpuemb diff
--against-checkpoint CKPT spec.pbtxt``): the keys and global shapes its ``.metadata`` holds,
and ``planner_data["sparsecore"]`` (``SparseCoreSavePlanner``'s ``world_size``,
``num_sc_per_device`` and, when it was given them, ``stacked_configs``), against what the spec's
fused collection would load (compat/state), as ``SparseCoreLoadPlanner`` loads it
(compat/changes says how).

What cannot be told from ``.metadata``: the values (a table of the same shape trained for
another feature); which topology a checkpoint of the default planner was saved on (it records
none); where the collection sits in the model when several do (``--checkpoint-prefix``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.compat.layouts import CannotCompare
from tpuemb_cli.frontends.torchrec.compat.changes import (
    CARRY,
    MISSING,
    PARTIAL,
    RESHARD_HELP,
    layout_defect,
    relayout,
    table_causes,
)
from tpuemb_cli.frontends.torchrec.compat.state import (
    PLANNERS,
    SLOTS,
    WEIGHTS,
    BadConfigs,
    CollectionState,
    StackState,
    from_dicts,
    names,
    shape_text,
)
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import printable, ticked

_WEIGHT_SUFFIX = ".weight"
_SAVE_WITH = (
    "save with torchrec's `SparseCoreSavePlanner(num_sc_per_device=..., "
    "stacked_configs=collection.stacked_configs)`, which records the topology and the layout "
    f"({PLANNERS})"
)


class Saved(Record):
    """What the checkpoint says of its collection: its keys below the collection's path
    (``prefix``) and their global shapes (None: a value saved as bytes), the topology it was
    saved on and its stacked configs (None: not recorded; ``unrecorded`` says why)."""

    prefix: str
    keys: dict[str, tuple[int, ...] | None]
    world_size: int | None
    per_device: int | None
    configs: dict[str, StackState] | None
    unrecorded: str

    @property
    def shards(self) -> int:
        return (self.world_size or 1) * (self.per_device or 1)

    @property
    def why_unknown(self) -> str:
        """Why a stack's saved layout is not known."""
        return self.unrecorded or "the checkpoint's stacked configs do not name it"


def compare_dcp(name: str, state: CollectionState, checkpoint: Any) -> Iterator[Change]:
    """Every change between what ``checkpoint`` holds and what ``state`` loads."""
    saved = _saved(name, state, checkpoint)
    at = _where(saved)
    anchor: FieldPath = ("collection",)
    weights = [k for k in saved.keys if _weight_stack(k, state.weights) is not None]
    if not weights:
        other = next(w for w in WEIGHTS.values() if w != state.weights)
        yield Change(
            "restore-error",
            None,
            ("collection", "type"),
            other,
            state.weights,
            f"restoring fails: the checkpoint's stacks {at} are saved as `{other}.<stack>."
            f"weight`, the new collection's are `{state.weights}.<stack>.weight` ({MISSING})",
        )
        return
    cross = saved.world_size is not None and (saved.world_size, saved.per_device) != (
        state.devices,
        state.per_device,
    )
    if cross:
        yield _topology(saved, state)
    missing_slots: list[str] = []
    resharded: list[str] = []
    relaid: list[str] = []  # what the resharding re-lays out, table by table
    layouts_unknown: list[str] = []
    for stack in state.stacks:
        key = state.weight_key(stack.name)
        if key not in saved.keys:
            yield _absent(saved, state, stack)
            continue
        held = saved.keys[key]
        problem = _shape_problem(saved, state, stack, key, held, cross)
        if problem is not None:
            yield problem
            continue
        for slot_key in list(state.keys(stack))[1:]:
            if slot_key not in saved.keys:
                missing_slots.append(slot_key)
            else:
                problem = _shape_problem(saved, state, stack, slot_key, saved.keys[slot_key], cross)
                if problem is not None:
                    yield problem
        old = saved.configs.get(stack.name) if saved.configs is not None else None
        if cross:
            if old is None:
                layouts_unknown.append(stack.name)
                continue
            joined = [t for t in stack.table_names if t not in old.table_names]
            if joined:
                yield Change(
                    "restore-error",
                    stack.name,
                    stack.path,
                    None,
                    None,
                    f"restoring fails: the load planner reshards stack `{stack.name}` table by "
                    f"table with the checkpoint's stacked config, which does not hold "
                    f"{names(joined)} (`stack_and_shard_global_tensor` raises KeyError)",
                    help=CARRY,
                )
                continue
            resharded.append(stack.name)
            relaid.extend(f"`{stack.name}`: {cause}" for cause in table_causes(old, stack))
        elif old is not None:
            change = relayout(
                old, stack, "the checkpoint's stacked config lays its rows out otherwise"
            )
            if change is not None:
                yield change
        else:
            yield Change(
                "unverified-layout",
                stack.name,
                stack.path,
                None,
                None,
                f"{saved.why_unknown}: stack `{stack.name}` restores (shape "
                f"{shape_text(stack.shape)}), but whether each table's rows are where the new "
                "layout reads them cannot be told from shapes (another topology, another "
                "table of the same size, other offsets or rotations keep the shape)",
                help=_SAVE_WITH,
            )
    if missing_slots:
        yield _slots_missing(saved, state, missing_slots)
    if resharded:
        yield Change(
            "silent-reinit",
            None,
            _topology_path(saved, state),
            None,
            None,
            "restores without an error, but "
            + layout_defect(resharded, saved.shards, state.shards)
            + (f" (the tables re-laid out: {'; '.join(relaid)})" if relaid else "")
            + "; `unshard_for_cpu=True` loads of this checkpoint read it the planner's way too "
            f"({PLANNERS})",
            help=RESHARD_HELP,
        )
    if layouts_unknown:
        yield Change(
            "silent-reinit",
            None,
            _topology_path(saved, state),
            None,
            None,
            f"cannot restore correctly: {saved.why_unknown}, and the topology differs: the load "
            f"planner un-MOD-shards each of {names(layouts_unknown)} as one table (or unstacks "
            "it with the stacked configs it is given, which are the new topology's, not the "
            "checkpoint's), so each table's rows land elsewhere -- or the copy into the new "
            "stack fails where the shapes differ",
            help=(
                "load it on the topology it was saved on and save it again with "
                "`SparseCoreSavePlanner(stacked_configs=collection.stacked_configs)`; then "
                + RESHARD_HELP
            ),
        )
    yield from _orphaned(saved, state, anchor)


def _saved(name: str, state: CollectionState, checkpoint: Any) -> Saved:
    metadata = checkpoint.metadata
    path = printable(checkpoint.path)
    prefix = _prefix(path, state, metadata.entries, checkpoint.prefix)
    keys: dict[str, tuple[int, ...] | None] = {}
    for key, entry in metadata.entries.items():
        if key.startswith(prefix):
            keys[key[len(prefix) :]] = getattr(entry, "size", None)
    sparsecore = metadata.sparsecore
    if sparsecore is None:
        return Saved(
            prefix,
            keys,
            None,
            None,
            None,
            "the checkpoint records no topology or stacked configs (no "
            "`planner_data['sparsecore']`: saved by the default planner)",
        )
    world, per_device = sparsecore.get("world_size"), sparsecore.get("num_sc_per_device", 2)
    if type(world) is not int or type(per_device) is not int or world < 1 or per_device < 1:
        raise CannotCompare(
            f"{path}: cannot compare: its `planner_data['sparsecore']` holds world_size "
            f"{printable(repr(world))} and num_sc_per_device {printable(repr(per_device))}, not "
            "the counts torchrec's SparseCoreSavePlanner writes"
        )
    configs: dict[str, StackState] | None = None
    unrecorded = ""
    if "stacked_configs" not in sparsecore:
        unrecorded = (
            "the checkpoint records no stacked configs (`SparseCoreSavePlanner` was given none)"
        )
    else:
        try:
            configs = from_dicts(sparsecore["stacked_configs"])
        except BadConfigs as problem:
            unrecorded = f"the checkpoint's stacked configs are unreadable ({problem})"
        else:
            wrong = _disagrees(configs, keys, state)
            if wrong:
                configs, unrecorded = None, f"the checkpoint's stacked configs {wrong}"
    return Saved(prefix, keys, world, per_device, configs, unrecorded)


def _disagrees(
    configs: dict[str, StackState], keys: dict[str, tuple[int, ...] | None], state: CollectionState
) -> str:
    """Why the stacked configs do not describe the saved stacks ("": they do)."""
    for config in configs.values():
        held = keys.get(state.weight_key(config.name))
        if held is not None and tuple(held) != config.shape:
            return (
                f"give stack `{printable(config.name)}` the shape {shape_text(config.shape)}, its "
                f"tensor is {shape_text(held)}: they do not describe it"
            )
    return ""


def _weight_stack(key: str, weights: str) -> str | None:
    head = f"{weights}."
    if key.startswith(head) and key.endswith(_WEIGHT_SUFFIX) and len(key) > len(head) + 7:
        return key[len(head) : -len(_WEIGHT_SUFFIX)]
    return None


def _prefix(path: str, state: CollectionState, entries: Any, said: str | None) -> str:
    """Where the collection's state dict sits among the checkpoint's keys: ``said``
    (--checkpoint-prefix), else found by its stacks' keys."""
    if said is not None:
        prefix = said if not said or said.endswith(".") else f"{said}."
        if not any(k.startswith(prefix) for k in entries):
            raise CannotCompare(
                f"{path}: cannot compare: it holds no key under `{printable(prefix)}` "
                "(--checkpoint-prefix)"
            )
        return prefix
    found: dict[str, int] = {}
    for key in entries:
        for weights in WEIGHTS.values():
            marker = f"{weights}."
            at = key.find(marker)
            if key.endswith(_WEIGHT_SUFFIX) and at >= 0 and (at == 0 or key[at - 1] == "."):
                prefix = key[:at]
                wanted = {state.weight_key(s.name) for s in state.stacks}
                found[prefix] = found.get(prefix, 0) + (key[at:] in wanted)
                break
    if not found:
        shown = ", ".join(f"`{printable(k)}`" for k in list(entries)[:5]) or "none"
        raise CannotCompare(
            f"{path}: cannot compare: it holds no stacked table of a TorchRec fused collection "
            f"(no key `...{state.weights}.<stack>.weight`); its keys: {shown}"
            + (", ..." if len(entries) > 5 else "")
        )
    if len(found) == 1:
        return next(iter(found))
    best = max(found.values())
    chosen = [p for p, n in found.items() if n == best]
    if len(chosen) > 1 or best == 0:
        listed = ticked(printable(p) or "(the root)" for p in sorted(found))
        raise CannotCompare(
            f"{path}: cannot compare: it holds the stacks of {len(found)} collections (under "
            f"{listed}): name the spec's with --checkpoint-prefix"
        )
    return chosen[0]


def _where(saved: Saved) -> str:
    return f"under `{printable(saved.prefix)}`" if saved.prefix else "at its root"


def _topology_path(saved: Saved, state: CollectionState) -> FieldPath:
    field = "global_device_count" if saved.world_size != state.devices else "num_sc_per_device"
    return ("collection", field)


def _topology(saved: Saved, state: CollectionState) -> Change:
    has = (
        "the checkpoint holds the stacked configs it was saved with"
        if saved.configs is not None
        else f"it cannot reshard it correctly: {saved.unrecorded}"
    )
    return Change(
        "topology-change",
        None,
        _topology_path(saved, state),
        f"{saved.world_size} x {saved.per_device}",
        f"{state.devices} x {state.per_device}",
        f"the checkpoint was saved on {saved.world_size} x {saved.per_device} (world size x "
        f"SparseCores a device), the collection runs on {state.devices} x {state.per_device}: "
        f"`SparseCoreLoadPlanner` loads it across topologies, and {has}; give "
        "the planner `num_sc_per_device` and the new `stacked_configs` (it does not find them "
        f"in a state dict of tensors) ({PLANNERS})",
    )


def _shape_problem(
    saved: Saved,
    state: CollectionState,
    stack: StackState,
    key: str,
    held: tuple[int, ...] | None,
    cross: bool,
) -> Change | None:
    wanted = state.keys(stack)[key]
    full = f"{saved.prefix}{key}"
    if held is None:
        return Change(
            "restore-error",
            stack.name,
            stack.path,
            None,
            shape_text(wanted),
            f"restoring fails: the checkpoint's `{printable(full)}` is saved as bytes, not a "
            f"tensor; the new collection's is a tensor of shape {shape_text(wanted)}",
        )
    if tuple(held) == wanted:
        return None
    # Across topologies the planner reads the saved tensor whole into a buffer of its own shape
    # and reshards it (an embedding key only; a learning rate is read as any other).
    if cross and not key.startswith("learning_rates."):
        return None
    old = saved.configs.get(stack.name) if saved.configs is not None else None
    causes = table_causes(old, stack) if old is not None else []
    why = f" ({'; '.join(causes)})" if causes else ""
    return Change(
        "restore-error",
        stack.name,
        stack.path,
        shape_text(held),
        shape_text(wanted),
        f"restoring fails: the checkpoint's `{printable(full)}` has shape {shape_text(held)}, "
        f"the new stack `{stack.name}` {shape_text(wanted)}{why} (DCP's load raises `Size "
        "mismatch between saved ... and current`)",
        help=CARRY,
    )


def _absent(saved: Saved, state: CollectionState, stack: StackState) -> Change:
    held = sorted(s for s in (_weight_stack(k, state.weights) for k in saved.keys) if s is not None)
    renamed = ""
    if saved.configs is not None:
        was = next(
            (c.name for c in saved.configs.values() if c.table_names == stack.table_names), None
        )
        if was is not None and was != stack.name:
            renamed = f"; its tables are the checkpoint's stack `{printable(was)}`, renamed"
    return Change(
        "restore-error",
        stack.name,
        stack.path,
        None,
        stack.name,
        f"restoring fails: the new stack `{stack.name}` {shape_text(stack.shape)} has no "
        f"`{printable(saved.prefix)}{state.weight_key(stack.name)}` in the checkpoint (it holds "
        f"{names(held)} {_where(saved)}){renamed}: {MISSING}",
        help=f"{CARRY}; {PARTIAL}",
    )


def _slots_missing(saved: Saved, state: CollectionState, keys: list[str]) -> Change:
    held = sorted({k.split(".", 1)[0] for k in saved.keys if k.split(".", 1)[0] in _SLOT_NAMES})
    return Change(
        "restore-error",
        None,
        ("collection", "optimizer", "type"),
        names(held),
        state.optimizer,
        f"restoring fails: the checkpoint lacks "
        f"{names(printable(saved.prefix) + k for k in keys[:4])}"
        + (", ..." if len(keys) > 4 else "")
        + f" of the collection's state dict (its optimizer, {state.optimizer}, keeps "
        f"{names(state.slots) if state.slots else 'no state'} of each stack; the checkpoint "
        f"holds {'optimizer state ' + names(held) if held else 'no optimizer state'}): "
        f"{MISSING}",
        help=(
            "load with `SparseCoreLoadPlanner(allow_partial_load=True)`: what it lacks then starts "
            "at its initial values"
        ),
    )


_SLOT_NAMES = {slot for slots in SLOTS.values() for slot in slots}


def _orphaned(saved: Saved, state: CollectionState, anchor: FieldPath) -> Iterator[Change]:
    wanted = {key for stack in state.stacks for key in state.keys(stack)}
    stacks: list[str] = []
    slots: list[str] = []
    for key in saved.keys:
        if key in wanted:
            continue
        stack = _weight_stack(key, state.weights)
        if stack is not None:
            stacks.append(stack)
        else:
            slot, _, name = key.partition(".")
            if slot in _SLOT_NAMES and state.stack_named(name) is not None:
                slots.append(key)
    if stacks:
        yield Change(
            "orphaned-state",
            None,
            anchor,
            names(stacks),
            None,
            f"the checkpoint's stack{'s' if len(stacks) > 1 else ''} {names(stacks)} "
            f"{_where(saved)} {'are' if len(stacks) > 1 else 'is'} no stack of the collection: "
            "DCP's load reads only the new state dict's keys, and leaves "
            f"{'them' if len(stacks) > 1 else 'it'} unread",
        )
    if slots:
        kinds = sorted({k.split(".", 1)[0] for k in slots})
        yield Change(
            "orphaned-state",
            None,
            ("collection", "optimizer", "type"),
            names(kinds),
            state.optimizer,
            f"the checkpoint holds optimizer state {names(kinds)} that the collection's "
            f"optimizer ({state.optimizer}) does not keep: read by nothing",
        )
