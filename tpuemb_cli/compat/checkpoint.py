"""Will a config restore from a checkpoint that exists? The variables a config's tables and slots
create, against those a TensorFlow checkpoint holds (``tpuemb diff --against-checkpoint``).

TensorFlow's mid-level API creates one variable per table, named after it, and one per optimizer
slot, ``<table>/<slot>``, each of shape (vocabulary, dim) (``_create_variables`` in
tensorflow/python/tpu/tpu_embedding_base.py). ``tf.train.Checkpoint(embedding=...)`` saves them
as children of the embedding object, each under its escaped local name:
``embedding/user/.ATTRIBUTES/VARIABLE_VALUE``, ``embedding/user.Smomenta/.ATTRIBUTES/...``
(``load.checkpoint.objects``). A table split over hosts (a ``ShardedVariable``) is saved as
slices of one full variable, under the same key with the full shape, and restores onto any
number of hosts. ``restore()`` pairs variables by name and checks shapes, nothing else; so:

- a variable whose shape differs: ``restore()`` raises (restore-error);
- a table or slot the checkpoint lacks starts from its initializer (silent-reinit);
- embedding state that no table or slot of the config asks for is restored by nothing
  (orphaned-state).

Where the embedding object sits in the checkpoint (``embedding`` in
``tf.train.Checkpoint(embedding=...)``, ``model/_tpu_embedding`` in a Keras model) is the
``prefix``: given, or found (``find_embedding``). The checkpoint's other variables (a dense
model, an optimizer's step, ``save_counter``) are never reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.compat.sides import Side, Table, side_of
from tpuemb_cli.compat.tables import possible_rows
from tpuemb_cli.load import Document
from tpuemb_cli.load.checkpoint import Checkpoint, Variable, objects
from tpuemb_cli.model import optimizers
from tpuemb_cli.model.nearest import did_you_mean, nearest
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.words import plural

if TYPE_CHECKING:
    from tpuemb_cli.spec.facts import SpecFacts

# Where ``tf.train.Checkpoint(embedding=mid_level_api)`` -- TensorFlow's own examples -- saves it.
DEFAULT_PREFIX = "embedding"
# A string variable TPUEmbeddingV2 keeps beside its tables (its SparseCore layouts), not state.
_LAYOUTS = "_sparse_core_table_layouts"


class EmbeddingNotFound(Exception):
    """The checkpoint's embedding state cannot be told apart: the prefix given holds no
    variables, several objects hold embedding state, or the checkpoint is not object-based."""


def compare_checkpoint(
    document: Document,
    checkpoint: Checkpoint,
    prefix: str | None = None,
    facts: SpecFacts | None = None,
) -> list[Change]:
    """Every change between what ``checkpoint`` holds under ``prefix`` (found when None:
    ``find_embedding``) and the variables the tables of ``document`` (a config or a spec, parsed)
    create, as the config's fields; placed in the document (``side="new"``). ``facts``: a spec's,
    compiled once for its lint and this comparison. Raises ``sides.NotComparable`` for a
    document of another kind, EmbeddingNotFound."""
    side = side_of(document, facts)
    where = find_embedding(checkpoint, side.tables, prefix)
    held = objects(checkpoint).get(where, {})
    held = {name: variable for name, variable in held.items() if name != _LAYOUTS}
    left = _leftovers(side, held)
    return [*_restored(side, where, held, left, checkpoint), *_orphaned(side, where, held, left)]


def find_embedding(checkpoint: Checkpoint, tables: Sequence[Table], prefix: str | None) -> str:
    """The object path under which ``checkpoint`` holds the embedding's variables.

    Given a ``prefix``, it (slashes around it ignored) must hold variables. Otherwise the object
    whose variables are named most like the tables and slots of ``tables``; failing that, the
    one object holding what looks like embedding state (``X`` beside ``X/<slot>``); failing
    that, ``DEFAULT_PREFIX`` (which may hold nothing: every table then starts from scratch)."""
    if not checkpoint.object_based:
        raise EmbeddingNotFound(
            f"{checkpoint.path}: saved by name (it has no object graph: a TF1 Saver's), not by "
            "tf.train.Checkpoint; tpuemb compares object-based checkpoints only"
        )
    holders = objects(checkpoint)
    if prefix is not None:
        wanted = prefix.strip("/")
        if wanted not in holders:
            raise EmbeddingNotFound(
                f"{checkpoint.path}: no object `{wanted}` holds variables"
                f"{did_you_mean(nearest(wanted, holders))} ({_holders(holders)})"
            )
        return wanted
    names = {table.name for table in tables}
    for table in tables:
        names.update(f"{table.name}/{slot}" for slot in _slots(table) or ())
    scores = {path: len(names & held.keys()) for path, held in holders.items()}
    best = max(scores.values(), default=0)
    found = [path for path, score in scores.items() if score == best and best > 0]
    if not found:
        found = [path for path, held in holders.items() if _looks_like_embedding(held)]
        if not found:
            return DEFAULT_PREFIX
    if len(found) > 1:
        shown = ", ".join(f"`{path}`" for path in sorted(found))
        raise EmbeddingNotFound(
            f"{checkpoint.path}: embedding state under {len(found)} objects ({shown}): "
            "say which one is this config's"
        )
    return found[0]


def _holders(holders: dict[str, dict[str, Variable]]) -> str:
    tops = sorted({path.split("/")[0] for path in holders if path})
    if not tops:
        return "it holds no object with variables"
    shown = ", ".join(f"`{top}`" for top in tops[:8]) + (", ..." if len(tops) > 8 else "")
    return f"its objects: {shown}"


def _looks_like_embedding(held: dict[str, Variable]) -> bool:
    slots = {slot for row in optimizers.optimizers() for slot in row.slots}
    splits = (name.rpartition("/") for name in held)
    return any(table in held and slot in slots for table, _, slot in splits)


def _slots(table: Table) -> tuple[str, ...] | None:
    """The slot variables ``table`` creates; None when tpuemb cannot know them."""
    row = optimizers.optimizer(table.optimizer)
    return row.slots if row is not None else None


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(size) for size in shape) + ")"


def _dims(shape: tuple[int, ...]) -> str:
    return "[" + ",".join(str(size) for size in shape) + "]"


def _rows(table: Table) -> int:
    return table.rows if table.rows is not None else table.vocabulary


def _leftovers(side: Side, held: dict[str, Variable]) -> dict[str, list[str]]:
    """The checkpoint's variables that no table or slot of the config asks for, by the variable
    they belong to: a leftover ``T/S`` to the table variable ``T`` beside it (the longest such
    ``T``: a table's name may itself hold a slash), any other to itself."""
    wanted = {table.name for table in side.tables}
    for table in side.tables:
        wanted.update(f"{table.name}/{slot}" for slot in _slots(table) or ())
    owners: dict[str, list[str]] = {}
    for name in sorted(held.keys() - wanted):
        owner = next((name[:cut] for cut in _cuts(name) if name[:cut] in held), name)
        owners.setdefault(owner, []).append(name)
    return owners


def _restored(
    side: Side,
    where: str,
    held: dict[str, Variable],
    left: dict[str, list[str]],
    checkpoint: Checkpoint,
) -> Iterator[Change]:
    """What each table of the config gets from the checkpoint."""
    names = {table.name for table in side.tables}
    # Tables of the checkpoint that no table of the config is: a rename's other half.
    gone = {owner: held[owner] for owner in left if owner not in names and owner in held}
    for table in side.tables:
        stored = held.get(table.name)
        if stored is None:
            yield _fresh(side, table, where, gone, checkpoint, bool(held))
            continue
        shape = _shape_change(side, table, table.name, stored, where)
        if shape is not None:
            yield shape
            continue
        yield from _slot_changes(side, table, where, held)


def _key(where: str, name: str) -> str:
    return f"{where}/{name}" if where else name


def _shape_change(
    side: Side, table: Table, name: str, stored: Variable, where: str
) -> Change | None:
    """A restore-error when the variable ``name`` of ``table`` cannot take ``stored``."""
    want = (_rows(table), table.dim)
    rows_fit = len(stored.shape) == 2 and stored.shape[0] in possible_rows(side, table)
    if rows_fit and stored.shape[1] == table.dim:
        return None
    fails = (
        f"restoring fails: the checkpoint's `{name}` ({_key(where, name)}) has shape "
        f"{_shape(stored.shape)}, the config's `{name}` {_shape(want)} (TensorFlow: Received "
        f"incompatible tensor with shape {_shape(stored.shape)} when attempting to restore "
        f"variable with shape {_shape(want)}; for a table split over hosts: shape in "
        f"shape_and_slice spec {_dims(want)} does not match the shape stored in checkpoint: "
        f"{_dims(stored.shape)})"
    )
    if len(stored.shape) != 2:
        return Change("restore-error", table.name, table.path, _shape(stored.shape), None, fails)
    if stored.shape[1] != table.dim:
        field: FieldPath = table.path + ("dimension",)
        return Change("restore-error", table.name, field, stored.shape[1], table.dim, fails)
    field = table.path + ("vocabulary_size",)
    return Change("restore-error", table.name, field, stored.shape[0], want[0], fails)


def _fresh(
    side: Side,
    table: Table,
    where: str,
    gone: dict[str, Variable],
    checkpoint: Checkpoint,
    any_held: bool,
) -> Change:
    """A table the checkpoint does not hold (``gone``: its tables that the config lacks)."""
    shape = (_rows(table), table.dim)
    if not any_held:
        why = (
            f"the checkpoint holds no embedding state under `{where}` "
            f"({_holders(objects(checkpoint))})"
        )
    else:
        why = f"the checkpoint has no `{_key(where, table.name)}`"
    hint = ""
    others = [name for name, variable in gone.items() if variable.shape == shape]
    if len(others) == 1:
        hint = f"; its `{others[0]}` has that shape and is restored by nothing: renamed?"
    return Change(
        "silent-reinit",
        table.name,
        table.path,
        None,
        table.name,
        f"{why}: the restore leaves `{table.name}` {_shape(shape)} and its slots at their "
        f"initializers{hint}",
    )


def _optimizer_path(table: Table) -> FieldPath:
    return (
        table.path + ("optimization_parameters",) + ((table.optimizer,) if table.optimizer else ())
    )


def _slot_changes(
    side: Side, table: Table, where: str, held: dict[str, Variable]
) -> Iterator[Change]:
    """The slot variables of a table the checkpoint holds."""
    slots = _slots(table)
    label = optimizers.label(table.optimizer)
    path = _optimizer_path(table)

    def reinit(message: str) -> Change:
        return Change("silent-reinit", table.name, path, None, label, message)

    if slots is None:
        unknown = table.optimizer or "no optimizer"
        yield reinit(
            f"tpuemb does not know the slot variables of `{unknown}` (TensorFlow's mid-level "
            f"API does not build it), so some of `{table.name}`'s may start from scratch"
        )
        return
    for slot in slots:
        name = f"{table.name}/{slot}"
        stored = held.get(name)
        if stored is not None:
            change = _shape_change(side, table, name, stored, where)
            if change is not None:
                want = _shape((_rows(table), table.dim))
                yield change._replace(path=path, old=_shape(stored.shape), new=want)
            continue
        yield reinit(
            f"the checkpoint has no slot `{name}` ({_key(where, name)}): {label}'s "
            f"`{slot}` of `{table.name}` starts from its initializer"
        )


def _orphaned(
    side: Side, where: str, held: dict[str, Variable], left: dict[str, list[str]]
) -> Iterator[Change]:
    """The checkpoint's embedding state that nothing of the config restores."""
    by_name = {table.name: table for table in side.tables}
    for owner, names in left.items():
        table = by_name.get(owner)
        if table is not None:
            if _slots(table) is None:
                continue  # tpuemb cannot tell whether its optimizer restores them: said above
            label = optimizers.label(table.optimizer)
            for name in names:
                slot = name[len(owner) + 1 :]
                yield Change(
                    "orphaned-state",
                    table.name,
                    _optimizer_path(table),
                    _key(where, name),
                    None,
                    f"the checkpoint's slot `{name}` ({_key(where, name)}) is restored by "
                    f"nothing: {label} has no `{slot}`",
                )
            continue
        variable = held.get(owner)
        shape = f" {_shape(variable.shape)}" if variable is not None else ""
        slots = [f"`{name}`" for name in names if name != owner]
        also = f" (and {', '.join(slots)})" if slots else ""
        yield Change(
            "orphaned-state",
            owner,
            (),
            _key(where, owner),
            None,
            f"the checkpoint's `{owner}`{shape}{also} is restored by nothing: no table of the "
            f"config is named `{owner}` ({plural(len(names), 'variable')} under `{where}`)",
        )


def _cuts(name: str) -> list[int]:
    """Where ``name`` may split into a table and a slot: at each slash, the last first."""
    return sorted((at for at, char in enumerate(name) if char == "/"), reverse=True)
