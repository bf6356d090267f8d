"""``explain --memory`` of a TorchRecSpec: the fused collection's memory model (spec/memory) as
the one ``MemoryReport`` (model/memory_report) every front-end's report is rendered from.

Its figures are what ``_SparseCoreFusedEmbeddingBase.__init__`` (torchrec 1.9.2) allocates on
each device: a stack's weight of ``stack_num_embeddings // global_device_count`` rows of
``stack_embedding_dim`` float32 values, its optimizer's state of the same shape per slot, and a
float32 learning rate a stack. A collection torchrec refuses to build (its stacking raises, or
its optimizer has no SparseCore update) allocates nothing, and the report says why instead."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.torchrec.spec.memory import SLOTS, TorchRecMemory, model
from tpuemb_cli.frontends.torchrec.spec.stacking import BAG_COLLECTION, Stacking, stack
from tpuemb_cli.model.accelerators import Accelerator
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.memory_report import (
    ChipVerdict,
    MemoryReport,
    StackSummary,
    budget_for,
    cut,
)
from tpuemb_cli.model.optimizers import FLOAT_BYTES
from tpuemb_cli.model.words import plural, printable

ENGINE_LINE = (
    "engine: torchrec (SparseCore fused collection) -- each stack one float32 weight of "
    "stack_num_embeddings // global_device_count rows on every device, split evenly over its "
    "SparseCores; the optimizer's state the weight's shape per slot; a float32 learning rate a "
    "stack"
)
NOT_COUNTED = (
    "not counted (so this is a lower bound): the input preprocessing's buffers, activations, the "
    "dense model, XLA's working set"
)
NO_TPU = (
    "no TPU named: --tpu CHIP or `tpu` in [tool.tpuemb] compares each device's figures with a "
    "chip's HBM and its SparseCores a device"
)
# What the collection raises for an optimizer it has no SparseCore update for.
UNSUPPORTED = "Only 'sgd', 'adagrad', and 'adam' are supported."


def memory_report(name: str, spec: Any, tpu: Accelerator | None) -> MemoryReport:
    """The report of ``spec`` (named ``name``), against ``tpu``'s chip when one is named."""
    stacking = stack(spec)
    memory = model(spec, stacking)
    what = _collection(spec)
    header = f"{printable(name)}: TorchRec ({printable(what)})"
    refused = _refusal(spec, stacking, memory)
    if not refused and not stacking.stacks:
        return MemoryReport(
            "torchrec",
            name,
            {"built": True, "stacks": [], "bytes_per_device": 0},
            prose=f"{header}\n\nno table: the collection holds no weight\n",
            accelerator=tpu.name if tpu is not None else "",
            unsized="no table: the collection holds no weight",
        )
    if refused or memory is None:
        why = refused or (
            "global_device_count is below 1: no device holds a weight (`tpuemb check` reports it)"
        )
        return MemoryReport(
            "torchrec",
            name,
            {"built": False, "reason": why, "stacks": []},
            prose=f"{header}\n\nnot built: {printable(why)}\n",
            accelerator=tpu.name if tpu is not None else "",
            unsized=f"not built: {why}",
        )
    made = {held.name: held for held in stacking.stacks}
    rows = []
    stacks = []
    for number, held in enumerate(memory.stacks, 1):
        arrays = ("weight", *held.slots)
        rows.append(
            (
                f"{number} {cut(held.name)}",
                f"{held.rows_per_device:,} x {held.width:,}",
                f"{held.rows_per_sparse_core:,}",
                f"{held.padding_rows:,}",
                f"{len(arrays)} ({', '.join(arrays)})",
                size(held.bytes_per_device),
            )
        )
        stacks.append(
            {
                "name": held.name,
                "tables": [place.name for place in made[held.name].tables],
                "rows_per_device": held.rows_per_device,
                "rows_per_sparse_core": held.rows_per_sparse_core,
                "width": held.width,
                "table_rows": held.table_rows,
                "padding_rows": held.padding_rows,
                "excess_padding_values": made[held.name].excess_padding,
                "arrays": list(arrays),
                "array_bytes_per_device": held.array_bytes,
                "learning_rate": memory.learning_rate,
                "bytes_per_device": held.bytes_per_device,
            }
        )
    total = memory.per_device_bytes
    shares = tuple(h.bytes_per_device / total if total else 0.0 for h in memory.stacks)
    fields: dict[str, Any] = {
        "built": True,
        "collection": what if spec.HasField("collection") else None,
        "devices": memory.devices,
        "sparse_cores_per_device": memory.per_device,
        "sparse_cores": memory.devices * memory.per_device,
        "optimizer": memory.optimizer or None,
        "learning_rate": memory.learning_rate,
        "stacks": stacks,
        "bytes_per_device": total,
        "weights_per_device": memory.weights_per_device,
        "optimizer_state_per_device": memory.state_per_device,
        "learning_rates_per_device": memory.learning_rates_bytes,
        "parameters_per_device": memory.parameters_per_device,
        "bytes_all_devices": total * memory.devices,
    }
    if memory.optimizer == "Adagrad":
        fields["initial_accumulator_value"] = memory.initial_accumulator
    verdict: ChipVerdict | None = None
    said: tuple[str, ...] = ()
    refusal = mismatch = ""
    if tpu is not None:
        chip = tpu.chip
        refusal, mismatches = _topology(memory, tpu)
        said = (refusal,) if refusal else mismatches
        mismatch = "; ".join(mismatches)
        verdict = _chip_verdict(memory, chip)
        fields["tpu"] = {
            "name": tpu.name,
            "hbm_per_device": chip.hbm_per_core,
            "sparse_cores_per_device": chip.sparse_cores_per_device.value,
            "devices": tpu.devices,
            "fits": None if chip.hbm_per_core is None else total <= chip.hbm_per_core,
            "notes": list(said),
        }
    else:
        fields["tpu"] = None
        said = (NO_TPU,)
    return MemoryReport(
        "torchrec",
        name,
        fields,
        accelerator=tpu.name if tpu is not None else "",
        cannot_run=refusal,
        mismatch=mismatch,
        stacks=tuple(
            StackSummary(
                held.name,
                tuple(place.name for place in made[held.name].tables),
                held.rows_per_device * memory.devices,
                held.bytes_per_device * memory.devices,
                held.padding_rows * held.width * FLOAT_BYTES * (1 + len(held.slots)),
                held.padding_rows,
            )
            for held in memory.stacks
        ),
        unit="device",
        used=total,
        breakdown=(
            ("parameters", memory.weights_per_device),
            ("optimizer state", memory.state_per_device + memory.learning_rates_bytes),
        ),
        heading=f"{header}: what "
        + (
            "the fused collection allocates"
            if spec.HasField("collection")
            else "a fused collection of these stacks would allocate"
        )
        + " on each device",
        engine_line=ENGINE_LINE,
        columns=(
            "stack",
            "rows x dim a device",
            "rows a SparseCore",
            "padding rows (stack)",
            "arrays",
            "a device",
        ),
        rows=tuple(rows),
        shares=shares,
        notes=_notes(spec, memory, stacking),
        verdict=() if tpu is not None else said,
        chip=verdict,
    )


def _collection(spec: Any) -> str:
    if spec.HasField("collection"):
        return str(spec.collection.type or BAG_COLLECTION)
    return "prepare_tables_for_stacking"


def _refusal(spec: Any, stacking: Stacking, memory: TorchRecMemory | None) -> str:
    """Why the collection is not built ("" when it is)."""
    refusal = stacking.refusal
    if refusal is not None:
        return (
            f"{refusal.call} raises {refusal.type}: {refusal.message} -- no weight is allocated "
            "(`tpuemb check` reports it)"
        )
    if memory is not None and memory.optimizer and not memory.optimizer_known:
        return (
            f"the collection raises ValueError: Unsupported optimizer: {memory.optimizer}. "
            f"{UNSUPPORTED} -- no collection is built (`tpuemb check` reports it, TE848)"
        )
    return ""


def _notes(spec: Any, memory: TorchRecMemory, stacking: Stacking) -> tuple[str, ...]:
    shards = memory.devices * memory.per_device
    notes = [
        f"topology: {plural(memory.devices, 'device')} x {memory.per_device} SparseCores a "
        f"device = {plural(shards, 'SparseCore')}; each stack's rows are split evenly over them",
    ]
    if not spec.HasField("collection"):
        notes.append(
            "optimizer: none (no collection: prepare_tables_for_stacking only); the weights "
            "and learning rates a collection would hold, with no optimizer state (as SGD)"
        )
    else:
        slots = SLOTS[memory.optimizer]
        state = (
            f"{' and '.join(slots)}, each one array a stack of the weight's shape"
            if slots
            else "no state"
        )
        if memory.optimizer == "Adagrad":
            state += f", starting at {memory.initial_accumulator:g}"
        notes.append(f"optimizer: {printable(memory.optimizer)} ({state})")
    given = spec.collection.optimizer.kwargs
    source = (
        "`learning_rate`"
        if "learning_rate" in given
        else "`lr`"
        if "lr" in given
        else "the collection's default"
    )
    notes.append(
        f"learning rates: {memory.learning_rate:g} ({source}) on every stack, one float32 "
        f"scalar each: {plural(memory.learning_rates_bytes, 'byte')} a device"
    )
    padding = sum(held.padding_rows for held in memory.stacks)
    rows = sum(held.rows_per_device for held in memory.stacks) * memory.devices
    notes.append(
        f"padding: {padding:,} of the stacks' {rows:,} rows pad the tables (each table's rows "
        f"rounded up to 8 a SparseCore, a multiple of {8 * shards:,}); no id reaches them, and "
        "they take HBM as any row does"
    )
    excess = sum(held.excess_padding for held in stacking.stacks)
    if excess:
        notes.append(
            f"padding: {excess:,} values widen a stack's narrower tables to its widest "
            "(torchrec logs it as excess padding)"
        )
    total = memory.per_device_bytes
    notes.append(
        f"total: {size(total)} a device ({total:,} bytes): weights "
        f"{size(memory.weights_per_device)}, optimizer state {size(memory.state_per_device)}, "
        f"learning rates {plural(memory.learning_rates_bytes, 'byte')}; "
        f"{size(total * memory.devices)} over {plural(memory.devices, 'device')}"
    )
    notes.append(NOT_COUNTED)
    return tuple(notes)


def _topology(memory: TorchRecMemory, tpu: Accelerator) -> tuple[str, tuple[str, ...]]:
    """What the chip (and the slice, when its size is named) says of the spec's topology: why
    the collection cannot run on it at all ("" when it can), and what does not match."""
    chip = tpu.chip
    said = []
    per_device = chip.sparse_cores_per_device
    if per_device.value is None:
        return (
            f"TPU {chip.name} has no SparseCores tpuemb knows of ({per_device.source}): "
            "torchrec's fused collection runs its lookups on SparseCores"
        ), ()
    if per_device.value != memory.per_device:
        said.append(
            f"TPU {chip.name} has {per_device.value} SparseCores a device; the stacks are laid "
            f"out for {memory.per_device} (num_sc_per_device): set it to {per_device.value} to "
            "lay them out for this chip"
        )
    if tpu.devices is not None and tpu.devices != memory.devices:
        said.append(
            f"TPU {tpu.name} is {plural(tpu.devices, 'device')}; the collection is built for "
            f"{memory.devices} (global_device_count): the figures are for "
            f"{plural(memory.devices, 'device')}"
        )
    return "", tuple(said)


def _chip_verdict(memory: TorchRecMemory, chip: Chip) -> ChipVerdict:
    hbm = chip.hbm_per_core
    if hbm is None:
        return ChipVerdict(chip.name, None)
    used = memory.per_device_bytes
    budget = budget_for(used, hbm)
    advice: list[str] = []
    if budget is not None:
        advice.append("  more devices: each holds 1/global_device_count of every stack's rows")
        sgd = memory.parameters_per_device
        if sgd != used:
            advice.append(
                f"  cheaper optimizer state: SGD (no state): {size(sgd)} a device "
                f"({'enough' if sgd <= budget else 'not enough'})"
            )
        advice.append("  smaller or fewer tables")
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
