"""What every TorchRec rule reads of a spec, worked out once for all of them: the stacks torchrec
makes of it (spec/stacking), and where in the spec each call and table is."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.torchrec.spec.stacking import (
    DEFAULT_DEVICES,
    DEFAULT_SPARSECORES,
    Refusal,
    Stacking,
    stack,
    value,
)
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record


class Facts(Record):
    spec: Any
    stacking: Stacking

    @property
    def devices(self) -> int:
        return value(self.topology, "global_device_count", DEFAULT_DEVICES)

    @property
    def per_device(self) -> int:
        return value(self.topology, "num_sc_per_device", DEFAULT_SPARSECORES)

    @property
    def topology(self) -> Any:
        """Where the collection's (or prepare's) device count and SparseCores are written."""
        return self.spec.collection if self.spec.HasField("collection") else self.spec.prepare

    @property
    def topology_path(self) -> FieldPath:
        return ("collection",) if self.spec.HasField("collection") else ("prepare",)

    def call_path(self, refusal: Refusal) -> FieldPath:
        """Where a refusal is placed: its table, else its stack call, else the collection."""
        if refusal.table >= 0:
            return ("tables", refusal.table)
        if refusal.call_index >= 0:
            return ("stack_calls", refusal.call_index)
        return self.topology_path


def facts_of(spec: Any) -> Facts:
    return Facts(spec, stack(spec))


def table_label(spec: Any, index: int) -> str:
    name = spec.tables[index].name
    return f"table `{name}`" if name else f"table #{index}"


def named(spec: Any, names: Any) -> list[int]:
    """The indices of the tables ``stack_tables`` takes for ``names`` (every table of a name
    asked, in table order)."""
    wanted = set(names)
    return [i for i, table in enumerate(spec.tables) if table.name in wanted]


def explicit_groups(spec: Any) -> list[tuple[FieldPath, list[int], Any]]:
    """The groups of tables the spec's `stack_tables` calls stack: (the call's path, the tables,
    the call)."""
    groups: list[tuple[FieldPath, list[int], Any]] = []
    for index, call in enumerate(spec.stack_calls):
        if call.call != "auto_stack_tables" and not call.tables_string and call.tables:
            groups.append((("stack_calls", index), named(spec, call.tables), call))
    return groups


def prepared_groups(spec: Any) -> list[tuple[str, list[int]]]:
    """The groups ``prepare_tables_for_stacking`` makes of the tables no earlier call stacked
    (none when the collection stacks every table itself, `auto_stack`): by `stack_table_name`,
    else the table's own name -- so a stack_table_name equal to another table's name joins it."""
    if spec.HasField("collection") and spec.collection.auto_stack:
        return []
    if any(call.call == "auto_stack_tables" for call in spec.stack_calls):
        return []  # auto stacking took every table not stacked before it
    taken = {i for _, group, _ in explicit_groups(spec) for i in group}
    groups: dict[str, list[int]] = {}
    for i, table in enumerate(spec.tables):
        if i not in taken:
            groups.setdefault(table.stack_table_name or table.name, []).append(i)
    return list(groups.items())
