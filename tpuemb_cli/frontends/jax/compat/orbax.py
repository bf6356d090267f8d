"""Will an Orbax checkpoint on disk restore into a stacked layout, and into the right rows?
(``tpuemb diff --against-checkpoint STEP NEW`` for an EmbeddingSpecProto or a spec with a
``jax`` section.)

What is on disk (``load.orbax``): per stack, under the key path of the library's variables
(``{stack_name: EmbeddingVariables(table, slot)}``, saved as dict keys), the array
``<stack>/table`` and one array per slot, keyed by the slot's name
(``<stack>/slot/accumulator``; SGD's empty slot is a ``None`` leaf ``<stack>/slot``). Orbax
restores the new variables' tree strictly (``StandardRestore``, orbax-checkpoint 0.12.8): a key
on one side and not on the other -- a stack gained, lost or renamed, another optimizer's slot
names -- refuses the tree, and another shape refuses the array. Those are ``restore-error``s,
judged from the arrays themselves.

A stack that keeps its name and shape restores whatever its layout. Where the checkpoint holds
the ``EmbeddingSpecProto`` it was written with (an item of ``ProtoCheckpointHandler``, as 0.2.0's
``save_checkpoint`` and the library's examples save it), that layout is compared with the new
one (``changes``): a ``silent-reinit`` where rows move, and what else changed. Where it holds
none, shapes cannot tell a re-layout that keeps them (another SparseCore count, offset, rotation,
or another table of the same size): each such stack is an ``unverified-layout``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.compat.layouts import CannotCompare
from tpuemb_cli.frontends.jax.compat.changes import CARRY, jax_changes, table_notes
from tpuemb_cli.frontends.jax.compat.entries import JaxSide, StackVariables, jax_side
from tpuemb_cli.load.orbax import (
    TREE_MISMATCH,
    Array,
    Item,
    KeyPath,
    OrbaxCheckpoint,
    shape_mismatch,
)
from tpuemb_cli.model.words import plural, printable

if TYPE_CHECKING:
    from tpuemb_cli.load import Document

# The kinds whose help is the way across.
_CARRIED = ("restore-error", "silent-reinit", "topology-change")
_CONVERTER = "https://github.com/jax-ml/jax-tpu-embedding/blob/v0.2.0/jax_tpu_embedding/sparsecore/lib/flax/nnx"


class Stored(NamedTuple):
    """A stack as the checkpoint holds it: its table array and slot arrays by key (``()`` for
    SGD's empty slot; None where the checkpoint holds no slot node at all)."""

    name: str
    table: Array
    slots: dict[str | int, Array] | None

    @property
    def shape(self) -> tuple[int, ...] | None:
        return self.table.shape


class Held(NamedTuple):
    """The embedding state of a checkpoint: the item and key path its stacks sit under, the
    stacks by name, and the saved layout where there is one (with why it is not used, if so)."""

    item: Item
    prefix: KeyPath
    stacks: dict[str, Stored]
    others: int  # the item's other arrays: the rest of the model, not compared


# Keras-RS's DistributedEmbedding (JAX backend) keeps a stack's variables as Keras variables whose
# names hold the stack's, flat in the layer's dict: ``var:<stack>:table`` and
# ``var:<stack>:table:slot:<slot>`` (tests/data/orbax's keras_sparsecore_manager).
_KERAS_TABLE = re.compile(r"^var:(?P<stack>.+):table$")
_KERAS_SLOT = re.compile(r"^var:(?P<stack>.+):table:slot:(?P<slot>[^:]+)$")


def _stacks_of(item: Item) -> dict[KeyPath, dict[str, Stored]]:
    """The stacks of one item, by the key path of the dict that holds them: the library's tree
    (``P/<stack>/table``, ``P/<stack>/slot/<slot>``) and Keras-RS's flat keys."""
    found: dict[KeyPath, dict[str, Stored]] = {}
    by_path = {array.path: array for array in item.arrays}
    slots_of: dict[tuple[KeyPath, str], dict[str | int, Array]] = {}
    for array in item.arrays:
        path = array.path
        if len(path) >= 3 and path[-2] == "slot" and isinstance(path[-3], str):
            slots_of.setdefault((path[:-3], path[-3]), {})[path[-1]] = array
        keras = _KERAS_SLOT.match(path[-1]) if path and isinstance(path[-1], str) else None
        if keras is not None:
            slots_of.setdefault((path[:-1], keras["stack"]), {})[keras["slot"]] = array
    for array in item.arrays:
        path = array.path
        if array.skipped or not path or not isinstance(path[-1], str):
            continue
        keras = _KERAS_TABLE.match(path[-1])
        if keras is not None:
            where, name = path[:-1], keras["stack"]
            slots = slots_of.get((where, name))
        elif len(path) >= 2 and path[-1] == "table" and isinstance(path[-2], str):
            where, name = path[:-2], path[-2]
            slots = slots_of.get((where, name))
            if slots is None and (*path[:-1], "slot") in by_path:
                slots = {}  # SGD's empty slot: a None leaf
        else:
            continue
        found.setdefault(where, {})[name] = Stored(name, array, slots)
    return found


def stored_stacks(checkpoint: OrbaxCheckpoint, expected: set[str]) -> Held:
    """Where the stacks sit: the key paths ``P/<stack>/table`` of an item (or Keras-RS's
    ``P/var:<stack>:table``), grouped by ``P``; of several groups, the one whose stack names are
    most like ``expected`` (the new layout's and the saved layout's). Raises CannotCompare when
    no item holds any."""
    groups: dict[tuple[int, KeyPath], dict[str, Stored]] = {}
    items = [item for item in checkpoint.items if item.arrays]
    for index, item in enumerate(items):
        for where, stacks in _stacks_of(item).items():
            groups[index, where] = stacks
    if not groups:
        arrays = sum(len(item.arrays) for item in items)
        raise CannotCompare(
            f"{printable(checkpoint.path)}: cannot compare: no embedding stacks in the checkpoint "
            f"(of its {plural(arrays, 'array')}, none is at a key path `.../<stack>/table`, "
            "where jax-tpu-embedding's variables are, or `.../var:<stack>:table`, Keras-RS's)"
        )

    def score(key: tuple[int, KeyPath]) -> tuple[int, int]:
        names = set(groups[key])
        return (len(names & expected), len(names))

    ranked = sorted(groups, key=score, reverse=True)
    best = ranked[0]
    if len(ranked) > 1 and score(ranked[1]) == score(best):
        places = ", ".join(f"`{_path(items[i].name, p)}`" for i, p in ranked[:4])
        raise CannotCompare(
            f"{printable(checkpoint.path)}: cannot compare: several places hold embedding "
            f"stacks alike ({places}): tpuemb cannot tell which is the layout's"
        )
    item = items[best[0]]
    stacks = groups[best]
    held = sum(1 + len(s.slots or {}) for s in stacks.values())
    return Held(item, best[1], stacks, len(item.arrays) - held)


def _path(item: str, prefix: KeyPath) -> str:
    return printable("/".join(str(k) for k in (item, *prefix) if k != ""))


def compare_orbax(
    document: Document,
    new: JaxSide,
    checkpoint: OrbaxCheckpoint,
    saved: JaxSide | None,
    unsaved: str = "",
    owner: str | None = None,
) -> list[Change]:
    """Every change between what ``checkpoint`` holds and the stacks of ``new``; ``saved``: the
    layout the checkpoint holds (its EmbeddingSpecProto item, loaded), or None (``unsaved``:
    what its proto items hold instead)."""
    expected = {s.name for s in new.stacks} | ({s.name for s in saved.stacks} if saved else set())
    held = stored_stacks(checkpoint, expected)
    why_not = _disagrees(saved, held) if saved is not None else None
    if saved is not None and why_not is None:
        held = _shaped_by(saved, held)
    _known_shapes(held, new, checkpoint)
    if why_not is not None:
        cause = f"the checkpoint's saved layout is not its arrays' ({why_not})"
    else:
        cause = "the checkpoint holds no EmbeddingSpecProto" + (f" ({unsaved})" if unsaved else "")
    if why_not is not None:
        saved = None
    # The item the converter reads the layout from (its folder's name), where it is the arrays'.
    layout_item = Path(saved.document.name).parent.name if saved is not None else None

    def helped(change: Change) -> Change:
        if change.kind not in _CARRIED:
            return change
        stack = next((s for s in new.stacks if s.name == change.table), None)
        notes = table_notes(saved, new, stack) if saved is not None and stack else []
        return change._replace(help=_way_across(held, checkpoint, new, notes, layout_item))

    errors = dict(_restore_errors(held, new))
    if owner is not None and held.prefix and held.prefix[-1] != owner:
        # The stacks sit under another owner's key (a Keras layer renamed): Orbax's strict
        # restore finds none of the new key paths.
        for stack in new.stacks:
            errors["new", stack.name] = Change(
                "restore-error",
                stack.name,
                stack.path,
                printable(str(held.prefix[-1])),
                owner,
                f"restoring fails: the checkpoint holds stack `{stack.name}` under "
                f"`{_path(held.item.name, held.prefix)}`, and the new model keeps it under "
                f"`{printable(owner)}`: restored by key path ({TREE_MISMATCH})",
            )
    changes: list[Change] = []
    if saved is not None:
        for change in jax_changes(saved, new):
            if change.kind == "restore-error":
                # The arrays decide whether it restores; the layout's account of why is kept.
                if _consume(errors, change):
                    changes.append(_anchored(change, new))
                continue
            if change.kind == "silent-reinit" and (("new", change.table) in errors):
                continue  # it does not restore at all
            changes.append(_anchored(change, new))
    changes.extend(errors.values())
    if saved is None:
        changes.extend(_unverified(held, new, errors, cause))
    changes.extend(_unknown_slots(held, new, errors))
    return [helped(change) for change in changes]


def _known_shapes(held: Held, new: JaxSide, checkpoint: OrbaxCheckpoint) -> None:
    """CannotCompare where a stack of the new layout is held with no shape known (an array
    replicated over a mesh axis is written in slices: only its store says): whether it restores
    cannot be told, and a pass would not be one."""
    for stack in new.stacks:
        stored = held.stacks.get(stack.name)
        if stored is not None and stored.shape is None:
            notes = "; ".join(checkpoint.notes)
            raise CannotCompare(
                f"{printable(checkpoint.path)}: cannot compare: the shape of stack "
                f"`{printable(stack.name)}` is not in the checkpoint's JSON files (its array is "
                "replicated over a mesh axis, written in slices), only in its OCDBT store"
                + (f" ({notes})" if notes else "")
            )


def _shaped_by(saved: JaxSide, held: Held) -> Held:
    """The stacks with the shapes the saved layout gives them where the files do not say (an
    array replicated over a mesh axis, without the store read): the layout the arrays were
    written with says their shape."""
    shapes = {stack.name: stack.shape for stack in saved.stacks}
    stacks = {}
    for name, stored in held.stacks.items():
        shape = shapes.get(name)
        if shape is not None:
            table = stored.table if stored.table.shape else stored.table._replace(shape=shape)
            slots = (
                {k: a if a.shape else a._replace(shape=shape) for k, a in stored.slots.items()}
                if stored.slots is not None
                else None
            )
            stored = stored._replace(table=table, slots=slots)
        stacks[name] = stored
    return held._replace(stacks=stacks)


def _disagrees(saved: JaxSide, held: Held) -> str | None:
    """Why the saved layout is not the one the arrays were written with (None: it is)."""
    for stack in saved.stacks:
        stored = held.stacks.get(stack.name)
        if stored is None:
            name = printable(stack.name)
            return f"its saved EmbeddingSpecProto names a stack `{name}` it does not hold"
        if stored.shape is not None and tuple(stored.shape) != stack.shape:
            return (
                f"its saved EmbeddingSpecProto gives stack `{printable(stack.name)}` the shape "
                f"{stack.shape}, its array is {tuple(stored.shape)}"
            )
    extra = set(held.stacks) - {s.name for s in saved.stacks}
    if extra:
        name = printable(sorted(extra)[0])
        return f"it holds a stack `{name}` its saved EmbeddingSpecProto does not name"
    return None


def _consume(errors: dict[tuple[str, str], Change], change: Change) -> bool:
    """Whether the arrays refuse what the layout's restore-error is about; the arrays' own
    account of it (and of the other name of a renamed stack) is then dropped."""
    found = False
    for key in (("new", change.table), ("old", change.table)):
        if key in errors:
            del errors[key]
            found = True
    if found and change.old is not None and ("old", str(change.old)) in errors:
        del errors["old", str(change.old)]
    return found


def _anchored(change: Change, new: JaxSide) -> Change:
    """A change of the layouts placed in the new file (the checkpoint has no lines): one about
    the old layout's stack or table is placed at the new layout's stacks."""
    if change.side == "new":
        return change
    return change._replace(side="new", path=(new.stacks[0].path if new.stacks else ()))


def _restore_errors(held: Held, new: JaxSide) -> Iterator[tuple[tuple[str, str], Change]]:
    """What refuses the restore, from the arrays: keyed ("new", stack) for a stack of the new
    layout, ("old", stack) for one only the checkpoint holds."""
    where = _where(held)
    names = {stack.name for stack in new.stacks}
    for stack in new.stacks:
        stored = held.stacks.get(stack.name)
        if stored is None:
            held_names = ", ".join(f"`{printable(n)}`" for n in sorted(held.stacks)) or "none"
            yield (
                ("new", stack.name),
                Change(
                    "restore-error",
                    stack.name,
                    (*stack.path, "stack_name"),
                    None,
                    stack.name,
                    f"restoring fails: the new stack `{stack.name}` {_shape(stack.shape)} has no "
                    f"entry in the checkpoint ({where} holds {held_names}) ({TREE_MISMATCH})",
                ),
            )
            continue
        problem = _array_problem(stored, stack)
        if problem is not None:
            yield ("new", stack.name), problem
    for name, stored in held.stacks.items():
        if name not in names:
            yield (
                ("old", name),
                Change(
                    "restore-error",
                    name,
                    new.stacks[0].path if new.stacks else (),
                    name,
                    None,
                    f"restoring fails: the checkpoint's stack `{printable(name)}` "
                    f"{_shape(stored.shape)} ({where}) is no stack of the new layout "
                    f"({TREE_MISMATCH})",
                ),
            )


def _array_problem(stored: Stored, stack: StackVariables) -> Change | None:
    if stored.shape is not None and tuple(stored.shape) != stack.shape:
        field = "stack_vocab_size" if stored.shape[:1] != stack.shape[:1] else "stack_embedding_dim"
        return Change(
            "restore-error",
            stack.name,
            (*stack.path, field),
            _shape(stored.shape),
            _shape(stack.shape),
            f"restoring fails: the checkpoint's stack `{stack.name}` has shape "
            f"{_shape(stored.shape)}, the new layout's {_shape(stack.shape)} "
            f"({shape_mismatch(stack.shape, tuple(stored.shape))})",
        )
    wanted = stack.slots
    if wanted is None:
        return None  # the new layout does not record its optimizer (0.1.0)
    # No slot node at all (a tree saved without the optimizer's state) holds no slot array.
    held = tuple(str(k) for k in stored.slots) if stored.slots is not None else ()
    if stored.slots is None and not wanted:
        return None
    if set(held) != set(wanted) or any(isinstance(k, int) for k in (stored.slots or {})):
        path = (*stack.tables[0].path, "optimizer") if stack.tables else stack.path
        return Change(
            "restore-error",
            stack.name,
            path,
            _names(held),
            _names(wanted),
            f"restoring fails: the checkpoint's stack `{stack.name}` holds "
            f"{plural(len(held), 'slot array')} ({_names(held)}), the new optimizer "
            f"({stack.optimizer}) {plural(len(wanted), 'slot array')} ({_names(wanted)}): Orbax "
            f"restores slots by name ({TREE_MISMATCH})",
        )
    for key, array in (stored.slots or {}).items():
        if array.shape is not None and tuple(array.shape) != stack.shape:
            return Change(
                "restore-error",
                stack.name,
                (*stack.path, "stack_vocab_size"),
                _shape(array.shape),
                _shape(stack.shape),
                f"restoring fails: the checkpoint's slot `{printable(str(key))}` of stack "
                f"`{stack.name}` has shape {_shape(array.shape)}, the new layout's "
                f"{_shape(stack.shape)}",
            )
    return None


def _unverified(
    held: Held,
    new: JaxSide,
    errors: dict[tuple[str, str], Change],
    cause: str,
) -> Iterator[Change]:
    """Each stack that restores by name and shape, where no saved layout says whether its rows
    are where the new layout reads them (``cause``: why not)."""
    for stack in new.stacks:
        if ("new", stack.name) in errors or stack.name not in held.stacks:
            continue
        yield Change(
            "unverified-layout",
            stack.name,
            stack.path,
            None,
            None,
            f"{cause}: stack `{stack.name}` restores (shape {_shape(stack.shape)}), but whether "
            "each table's rows are where the new layout reads them cannot be told from shapes: "
            "another SparseCore count, row_offset_in_shard or shard_rotation, or another table "
            "of the same size keeps every shape",
            help=(
                "save the EmbeddingSpecProto with each checkpoint (an item of "
                "`ocp.ProtoCheckpointHandler`, as jax-tpu-embedding 0.2.0's `save_checkpoint` "
                "does), or compare the layout the checkpoint was written with: "
                "`tpuemb diff OLD_LAYOUT NEW`"
            ),
        )


def _unknown_slots(
    held: Held, new: JaxSide, errors: dict[tuple[str, str], Change]
) -> Iterator[Change]:
    """Each stack whose slot arrays the checkpoint names and whose recorded optimizer does not
    say its own (CUSTOM): Orbax restores it only if the new optimizer's slots have those names,
    which nothing here tells. (A layout that records no optimizer, 0.1.0's proto, says nothing
    of slots at all, here as between two layouts: docs/jax.md.)"""
    for stack in new.stacks:
        stored = held.stacks.get(stack.name)
        if stored is None or ("new", stack.name) in errors or stack.slots is not None:
            continue
        if not stored.slots or not stack.optimizer:
            continue
        why = f"its optimizer is {stack.optimizer}, whose slots the proto does not name"
        yield Change(
            "unverified-layout",
            stack.name,
            (*stack.tables[0].path, "optimizer") if stack.tables else stack.path,
            None,
            None,
            f"the checkpoint's stack `{stack.name}` holds "
            f"{plural(len(stored.slots), 'slot array')} ({_names(stored.slots)}), and the new "
            f"layout cannot say whether its optimizer's are those: {why}; Orbax restores the "
            "slots by name, and refuses any other",
            help=(
                "compare a layout that records each table's optimizer (0.2.0's proto, or a "
                "tpuemb spec with a `jax` section), or check that the new optimizer's slots are "
                f"named {_names(stored.slots)}"
            ),
        )


def _where(held: Held) -> str:
    path = _path(held.item.name, held.prefix)
    return f"under `{path}`" if path else "at its root"


def _way_across(
    held: Held, checkpoint: OrbaxCheckpoint, new: JaxSide, notes: list[str], proto: str | None
) -> str:
    """The library's way from this checkpoint to the new layout: 0.2.0's converter where it
    can (the checkpoint holds its EmbeddingSpecProto and the stacks sit under an
    ``embedding_table`` key, the NNX layer's), else the 0.1.0 functions; and what neither does
    for this stack's tables (``notes``)."""
    extra = f" ({'; '.join(notes)})" if notes else ""
    if proto is None:
        return (
            f"{CARRY}{extra}; this checkpoint holds no EmbeddingSpecProto, which unstacking "
            "needs: use the layout it was written with"
        )
    if "embedding_table" not in held.prefix:
        return (
            f"{CARRY}{extra} (0.2.0's converter finds stacks only under an `embedding_table` "
            f"key, the NNX layer's; these are {_where(held)})"
        )
    root = str(Path(checkpoint.path).parent) if checkpoint.step is not None else checkpoint.path
    model = held.item.name
    if checkpoint.step is not None and (model, proto) == ("model", "embedding_spec"):
        target, other = _targets(new)
        call = (
            "`python -m jax_tpu_embedding.sparsecore.lib.flax.nnx.offline_converter "
            f"--input_checkpoint {_quoted(root)} --output_checkpoint OUT "
            f"--target_num_devices {target}`{other} ({_CONVERTER}/offline_converter.py)"
        )
    else:
        call = (
            "`checkpoint_utils.convert_cross_topology_checkpoint(input_checkpoint_path="
            f"{_quoted(root)!r}, output_checkpoint_path=OUT, model_key={model!r}, "
            f"embedding_spec_key={proto!r}, target_topology=TargetTopology(devices, "
            f"sparsecores_per_device), target_feature_specs=...)` ({_CONVERTER}/"
            "checkpoint_utils.py)"
        )
    return (
        f"carry the checkpoint across with jax-tpu-embedding 0.2.0's converter, which reads "
        f"its saved EmbeddingSpecProto: {call}. It carries tables as they are (a renamed "
        "table, a table grown past the checkpoint's, a new optimizer's slots it cannot make)"
        f"{extra}"
    )


def _targets(new: JaxSide) -> tuple[str, str]:
    """The converter's target for the new layout's SparseCores in all, and the other device
    kind that makes as many (a device kind's SparseCores: 'TPU v5' 4, 'TPU v6e' 2,
    ``NUM_SC_PER_DEVICE_MAP`` in the library's utils.py)."""
    cores = {s.num_sparsecores for s in new.stacks}
    total = next(iter(cores)) if len(cores) == 1 else 0
    options = [
        f"{total // per} --target_device_kind '{kind}'"
        for kind, per in (("TPU v5", 4), ("TPU v6e", 2))
        if total > 0 and total % per == 0
    ]
    if not options:
        return "N --target_device_kind KIND", ""
    other = f" (or `--target_num_devices {options[1]}`)" if len(options) > 1 else ""
    return options[0], other


def _quoted(path: str) -> str:
    text = printable(path)
    return (
        text
        if all(c.isalnum() or c in "/._-" for c in text)
        else "'" + text.replace("'", "'\\''") + "'"
    )


def _shape(shape: Any) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ")" if shape is not None else "(unknown)"


def _names(names: Any) -> str:
    return ", ".join(f"`{printable(str(n))}`" for n in names) or "none"


def saved_layout(checkpoint: OrbaxCheckpoint, load: Any) -> tuple[JaxSide | None, str]:
    """The layout the checkpoint was written with: its one proto item that ``load`` (file name,
    text -> Document, or None when it is no readable EmbeddingSpecProto) reads as a layout with
    stacks; and, where none does, what its proto items are instead (for the report). Another
    proto item (the job's own config) is no layout; two layouts are no checkpoint tpuemb can
    tell the layout of: CannotCompare."""
    found: list[tuple[str, JaxSide]] = []
    others: list[str] = []
    for item in checkpoint.protos:
        assert item.proto is not None
        document = load(*item.proto)
        message: Any = document.message if document is not None else None
        if message is not None and len(message.stacked_table_specs) > 0:
            found.append((item.proto[0], jax_side(document, message)))
        else:
            others.append(printable(item.proto[0]))
    if len(found) > 1:
        names = ", ".join(printable(name) for name, _ in found)
        raise CannotCompare(
            f"{printable(checkpoint.path)}: cannot compare: it holds {len(found)} "
            f"EmbeddingSpecProtos ({names}): which one its arrays were written with is not known"
        )
    if found:
        return found[0][1], ""
    if others:
        return None, f"its proto items ({', '.join(others)}) hold no readable EmbeddingSpecProto"
    return None, ""
