"""``explain --memory`` of a TorchRecSpec: the fused collection's memory model (spec/memory) as
the one ``MemoryReport`` (model/memory_report) every front-end's report is rendered from."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.torchrec.spec.memory import SLOTS, model
from tpuemb_cli.frontends.torchrec.spec.stacking import stack
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.memory_report import ChipVerdict, MemoryReport, budget_for, cut
from tpuemb_cli.model.words import plural, printable

ENGINE_LINE = (
    "engine: torchrec (SparseCore fused collection) -- one weight per stack, sharded over every "
    "device's SparseCores, and the optimizer's state of the same shape per slot"
)
NOT_COUNTED = (
    "not counted (so this is a lower bound): the input preprocessing's buffers, activations, the "
    "dense model, XLA's working set"
)


def memory_report(name: str, spec: Any, chip: Chip | None) -> MemoryReport:
    stacking = stack(spec)
    memory = model(spec, stacking)
    if memory is None:
        why = (
            f"torchrec refuses the stacks ({stacking.refusal.call}: {stacking.refusal.type}): no "
            "weight is built"
            if stacking.refusal is not None
            else "no stack: no weight is built"
        )
        return MemoryReport(
            "torchrec", name, {"stacks": [], "note": why}, prose=f"{printable(name)}: {why}"
        )
    optimizer = memory.optimizer or "none (no collection: weights only)"
    if memory.optimizer and not memory.optimizer_known:
        optimizer += " (refused by the collection: weights only counted)"
    rows = []
    stacks = []
    for number, held in enumerate(memory.stacks, 1):
        rows.append(
            (
                f"{number} {cut(held.name)}",
                f"{held.rows_per_device:,} x {held.width:,}",
                f"{held.padding_rows:,}",
                f"{1 + len(held.slots)} ({', '.join(('weight', *held.slots))})",
                size(held.bytes_per_device),
            )
        )
        stacks.append(
            {
                "name": held.name,
                "rows_per_device": held.rows_per_device,
                "width": held.width,
                "padding_rows_per_device": held.padding_rows,
                "arrays": ["weight", *held.slots],
                "bytes_per_device": held.bytes_per_device,
            }
        )
    total = memory.per_device_bytes
    shares = tuple(h.bytes_per_device / total if total else 0.0 for h in memory.stacks)
    fields: dict[str, Any] = {
        "devices": memory.devices,
        "sparse_cores_per_device": memory.per_device,
        "optimizer": memory.optimizer,
        "stacks": stacks,
        "bytes_per_device": total,
        "parameters_per_device": memory.parameters_per_device,
    }
    verdict: ChipVerdict | None = None
    if chip is not None:
        verdict = _chip_verdict(memory, chip)
        fields["chip"] = chip.name
        fields["hbm_per_device"] = chip.hbm_per_core
    notes = (
        f"optimizer: {optimizer}; slots by class: "
        + ", ".join(f"{k} {len(v)}" for k, v in SLOTS.items()),
        f"total: {size(total)} a device ({plural(memory.devices, 'device')} x "
        f"{memory.per_device} SparseCores); {total:,} bytes a device",
        NOT_COUNTED,
    )
    return MemoryReport(
        "torchrec",
        name,
        fields,
        heading=f"{printable(name)}: what each device holds",
        engine_line=ENGINE_LINE,
        columns=("stack", "rows x dim a device", "padding rows", "arrays", "a device"),
        rows=tuple(rows),
        shares=shares,
        notes=notes,
        chip=verdict,
    )


def _chip_verdict(memory: Any, chip: Chip) -> ChipVerdict:
    hbm = chip.hbm_per_core
    if hbm is None:
        return ChipVerdict(chip.name, None)
    used = memory.per_device_bytes
    budget = budget_for(used, hbm)
    advice: list[str] = []
    if budget is not None:
        advice.append("  more devices: each holds 1/devices of every stack's rows")
        sgd = memory.parameters_per_device
        if sgd != used:
            advice.append(
                f"  cheaper optimizer state: SGD (no state): {size(sgd)} a device "
                f"({'enough' if sgd <= budget else 'not enough'})"
            )
    return ChipVerdict(
        chip.name,
        hbm,
        used,
        unit="device",
        what="stacks",
        exceeded="the stacks alone exceed a device's HBM",
        ask="help",
        advice=tuple(advice),
    )
