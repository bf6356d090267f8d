"""What changed in the layouts of a stack's members, in the user's terms, each at its place in
the new spec: a table's size at its ``vocabulary_size`` or ``dim``, the SparseCores at
``topology``, what the layouts record of the features at the first feature, a table's place in
its stack at the table."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.tensorflow.compat.sides import SparseCoreSide
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.pb.layouts import SparseCoreTableLayout

LONG_NAME = 60


def shown(name: str) -> str:
    """A stack's name quoted, its middle elided when it is long (a stack of many tables)."""
    if len(name) <= LONG_NAME:
        return f"`{name}`"
    return f"`{name[:24]}...{name[-16:]}` ({len(name)} characters)"


def optimizer_path(side: SparseCoreSide, table: str) -> FieldPath:
    """Where ``table``'s optimizer is written: its own, or the spec's (``()`` for a
    checkpoint's side)."""
    found = side.tables.get(table)
    message: Any = side.document.message
    if found is None or message is None:
        return ()
    index = found[1]
    if isinstance(index, int) and message.tables[index].HasField("optimizer"):
        return (*found, "optimizer")
    return ("optimizer",)


def path_of(side: SparseCoreSide, table: str, *field: str | int) -> FieldPath | None:
    """The path of ``table`` (and ``field`` in it) in ``side``'s spec; None for a checkpoint's."""
    found = side.tables.get(table)
    return (*found, *field) if found is not None else None


def layout_causes(
    old: SparseCoreSide, new: SparseCoreSide, members: list[SparseCoreTableLayout]
) -> list[tuple[FieldPath, str]]:
    """What changed in the layouts of a stack's members, each at its place in the new spec,
    the most telling first (a table's size, then the SparseCores, then its place)."""
    before = old.state.layouts or {}
    found: list[tuple[int, FieldPath, str]] = []
    for member in members:
        name = member.table_name
        was = before.get(name)
        table = path_of(new, name) or ()
        if was is None:
            continue
        if was.stacked_table_name != member.stacked_table_name:
            stacking = _stacking(old, new)
            if stacking is not None:
                found.append(stacking)
            found.append((1, table, f"`{name}` was in stack {shown(was.stacked_table_name)}"))
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


STACKING = ("sparse_core", "disable_table_stacking")


def _stacking(old: SparseCoreSide, new: SparseCoreSide) -> tuple[int, FieldPath, str] | None:
    """Table stacking turned off or on between two specs (a checkpoint does not say)."""
    before, now = (_disabled(side) for side in (old, new))
    if before is None or now is None or before == now:
        return None
    return (1, STACKING, f"table stacking turned {'off' if now else 'on'}")


def _disabled(side: SparseCoreSide) -> bool | None:
    message: Any = side.document.message
    if not side.tables or message is None or not message.HasField("sparse_core"):
        return None  # a checkpoint's side
    return bool(message.sparse_core.disable_table_stacking)
