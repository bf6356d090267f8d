"""What a config change does to each table's variables: its parameters, its slots, and how it
trains.

A checkpoint restores ``<table>`` and ``<table>/<slot>`` by name and checks shapes, nothing else
(tensorflow/python/tpu/tpu_embedding_base.py, ``_create_variables``). So for each new table:
the checkpoint entry of its name is what it gets; a shape that differs fails the restore; a name
or slot the checkpoint lacks starts from its initializer; an entry that held another table (a
shifted ``table_<i>``) restores that table's rows into this one. Old names and slots nothing
asks for stay in the checkpoint, orphaned.
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.compat.fields import differences
from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.compat.sides import Side, Table
from tpuemb_cli.model import optimizers
from tpuemb_cli.model.paths import FieldPath, render
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters

_OPTIMIZER_MEMBERS = frozenset(
    field.name for field in OptimizationParameters.DESCRIPTOR.oneofs_by_name["parameters"].fields
)


def table_changes(old: Side, new: Side, pairs: dict[int, int]) -> Iterator[Change]:
    """Every change of the tables of ``old`` -> ``new``; ``pairs`` maps each new table to the
    old table it is (``matching.identities``)."""
    stored_by_name = {table.name: table for table in old.tables}
    now = {was: index for index, was in pairs.items()}
    for table in new.tables:
        stored = stored_by_name.get(table.name)
        was = old.tables[pairs[table.position]] if table.position in pairs else None
        if stored is None:
            yield _fresh(table, was)
        else:
            # The checkpoint's entry of this name held another table: the one this table was
            # is elsewhere, or this table is new and the name is a position (``table_<i>``)
            # another table held -- an unnamed table inserted before the others.
            other = (was is not None and was.position != stored.position) or (
                was is None and stored.unnamed and table.unnamed
            )
            shape = list(_shape(old, new, stored, table, was if other else None))
            yield from shape
            if other and not shape:
                yield _swapped(
                    stored,
                    table,
                    new.tables[now[stored.position]] if stored.position in now else None,
                )
            yield from _slots(stored, table)
        if was is not None:
            yield from _training(old, new, was, table)
            if was.name == table.name and was.position != table.position:
                yield Change(
                    "cosmetic",
                    table.name,
                    table.path,
                    was.position,
                    table.position,
                    f"table `{table.name}` moved from position {was.position} to {table.position}: "
                    "tables are restored by name, not position",
                )
    new_names = {table.name for table in new.tables}
    for table in old.tables:
        if table.name not in new_names:
            successor = new.tables[now[table.position]] if table.position in now else None
            yield _orphaned(table, successor)


def _fresh(table: Table, was: Table | None) -> Change:
    if was is None:
        # At the table, named or not (a comment on its first line, or alone on the line before
        # it, acknowledges it).
        return Change(
            "silent-reinit",
            table.name,
            table.path,
            None,
            table.name,
            f"new table `{table.name}`: the checkpoint has no `{table.name}`, so the restore "
            "leaves it (and its slots) at its initializer",
        )
    why = (
        "it was named by position and a table before it was added or removed"
        if was.unnamed and table.unnamed
        else "renamed?"
    )
    return Change(
        "silent-reinit",
        table.name,
        table.path + ("name",),
        was.name,
        table.name,
        f"the checkpoint's `{was.name}` will not be restored into `{table.name}` ({why}): "
        f"`{table.name}` starts from its initializer; keep the name `{was.name}` to restore it",
    )


def _swapped(stored: Table, table: Table, holder: Table | None) -> Change:
    now = f" (now `{holder.name}`)" if holder is not None else ""
    return Change(
        "silent-reinit",
        table.name,
        table.path + ("name",),
        stored.name,
        table.name,
        f"`{table.name}` is restored from the checkpoint's `{stored.name}`, which held another "
        f"table{now}: it starts from that table's trained rows, and every checkpoint assertion "
        "passes; name the tables (TableConfig(name=...)) so that their names do not follow "
        "their order",
    )


def _orphaned(table: Table, successor: Table | None) -> Change:
    """The old table's state, restored by nothing: placed at the table it became (a rename, in
    the new file, beside its silent-reinit: one comment there acknowledges the rename), else
    at the table in the old file."""
    now = f" (the table is now `{successor.name}`)" if successor is not None else ""
    names = ", ".join(f"`{table.name}/{slot}`" for slot in _slot_names(table))
    state = f" (and {names})" if names else ""
    message = f"the checkpoint's `{table.name}`{state} is restored by nothing{now}"
    if successor is not None:
        path = successor.path + ("name",)
        return Change("orphaned-state", table.name, path, table.name, None, message)
    return Change("orphaned-state", table.name, table.path, table.name, None, message, "old")


def _slot_names(table: Table) -> tuple[str, ...]:
    optimizer = optimizers.optimizer(table.optimizer)
    return optimizer.slots if optimizer else ()


def possible_rows(side: Side, table: Table) -> range:
    """The variables' possible row counts: known from a spec; from a config, ``vocabulary_size``
    is ``max(rows, num_hosts)`` (tpu_embedding_v2_utils.py, ``_set_table_descriptor``), so a
    value equal to the host count may be any row count up to it. A range, not a set: the host
    count is the document's, up to 2^31 - 1."""
    if table.rows is not None:
        return range(table.rows, table.rows + 1)
    hosts = side.config.num_hosts
    if hosts > 1 and table.vocabulary == hosts:
        return range(1, hosts + 1)
    return range(table.vocabulary, table.vocabulary + 1)


def _overlap(one: range, other: range) -> bool:
    return max(one.start, other.start) < min(one.stop, other.stop)


def _shape(
    old: Side, new: Side, stored: Table, table: Table, was: Table | None
) -> Iterator[Change]:
    held = f"the checkpoint's `{stored.name}`"
    if was is not None:
        held += f" (another table: `{table.name}` was `{was.name}`)"
    before = f"({stored.rows or stored.vocabulary}, {stored.dim})"
    after = f"({table.rows or table.vocabulary}, {table.dim})"
    fails = (
        f"restoring fails: {held} has shape {before}, the new `{table.name}` {after} "
        "(TensorFlow: Received incompatible tensor with shape ...)"
    )
    old_rows, new_rows = possible_rows(old, stored), possible_rows(new, table)
    if not _overlap(old_rows, new_rows):
        yield Change(
            "restore-error",
            table.name,
            table.path + ("vocabulary_size",),
            stored.rows or stored.vocabulary,
            table.rows or table.vocabulary,
            fails,
        )
    elif stored.vocabulary != table.vocabulary and None in (stored.rows, table.rows):
        yield Change(
            "cosmetic",
            table.name,
            table.path + ("vocabulary_size",),
            stored.vocabulary,
            table.vocabulary,
            f"`vocabulary_size` {stored.vocabulary} -> {table.vocabulary} is padding to the host "
            f"count ({old.config.num_hosts} -> {new.config.num_hosts}): TensorFlow pads the "
            "config only, the variables keep TableConfig.vocabulary_size (the config does not "
            "say it; compare the specs to be sure it did not change)",
        )
    if stored.dim != table.dim:
        yield Change(
            "restore-error",
            table.name,
            table.path + ("dimension",),
            stored.dim,
            table.dim,
            fails,
        )


def _optimizer_path(table: Table) -> FieldPath:
    return (
        table.path + ("optimization_parameters",) + ((table.optimizer,) if table.optimizer else ())
    )


def _slots(stored: Table, table: Table) -> Iterator[Change]:
    """The slot variables ``table`` asks for against those ``stored`` left in the checkpoint."""
    if stored.optimizer == table.optimizer:
        return
    before, after = optimizers.optimizer(stored.optimizer), optimizers.optimizer(table.optimizer)
    path = _optimizer_path(table)
    old_label, new_label = optimizers.label(stored.optimizer), optimizers.label(table.optimizer)
    if before is None or after is None:
        unknown = stored.optimizer if before is None else table.optimizer
        yield Change(
            "silent-reinit",
            table.name,
            path,
            old_label,
            new_label,
            f"{old_label} -> {new_label}: tpuemb does not know the slot variables of `{unknown}` "
            "(TensorFlow's mid-level API does not build it), so some may start from scratch",
        )
        return
    for slot in after.slots:
        name = f"{table.name}/{slot}"
        if slot not in before.slots:
            yield Change(
                "silent-reinit",
                table.name,
                path,
                old_label,
                new_label,
                f"{old_label} -> {new_label}: the slot `{name}` starts from its initializer: "
                f"{old_label} left no `{slot}` in the checkpoint",
            )
        else:
            yield Change(
                "training-change",
                table.name,
                path,
                old_label,
                new_label,
                f"{old_label} -> {new_label}: the slot `{name}` is restored by name from what "
                f"{old_label} wrote there, and {new_label} reads it as its own `{slot}`",
            )
    for slot in before.slots:
        if slot not in after.slots:
            yield Change(
                "orphaned-state",
                table.name,
                path,
                old_label,
                new_label,
                f"{old_label} -> {new_label}: the checkpoint's slot `{stored.name}/{slot}` is "
                f"restored by nothing: {new_label} has no `{slot}`",
            )


def _training(old: Side, new: Side, was: Table, table: Table) -> Iterator[Change]:
    """How the table trains: every optimization parameter that differs."""
    before = old.config.table_descriptor[was.position].optimization_parameters
    after = new.config.table_descriptor[table.position].optimization_parameters
    base = table.path + ("optimization_parameters",)
    # Most tables do not change: protobuf compares whole messages far faster than field by field.
    same = before == after
    for path, old_value, new_value in () if same else differences(before, after, base):
        if path[-1] in _OPTIMIZER_MEMBERS:
            old_value, new_value = (
                optimizers.label(was.optimizer),
                optimizers.label(table.optimizer),
            )
            message = f"the optimizer changes from {old_value} to {new_value}"
        else:
            message = (
                f"`{_field(path, base)}` changes from {_show(old_value)} to {_show(new_value)}"
            )
        yield Change("training-change", table.name, path, old_value, new_value, message)
    descriptor_before = old.config.table_descriptor[was.position]
    descriptor_after = new.config.table_descriptor[table.position]
    if descriptor_before.num_features != descriptor_after.num_features:
        yield Change(
            "training-change",
            table.name,
            table.path + ("num_features",),
            descriptor_before.num_features,
            descriptor_after.num_features,
            f"`num_features` changes from {descriptor_before.num_features} to "
            f"{descriptor_after.num_features}",
        )


def _field(path: FieldPath, base: FieldPath) -> str:
    return render(path[len(base) :])


def _show(shown: object) -> str:
    if shown is None:
        return "unset"
    if isinstance(shown, bool):
        return str(shown).lower()
    return str(shown)
