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
