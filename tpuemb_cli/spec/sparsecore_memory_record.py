"""The SparseCore (TPUEmbeddingV2) memory model's adapter: ``spec.sparsecore_memory``'s figures
as the one ``MemoryReport`` (model/memory_report) ``explain --memory`` renders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.model.accelerators import Accelerator
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import WARNING_PERCENT, size
from tpuemb_cli.model.memory_report import (
    ChipVerdict,
    MemoryReport,
    StackSummary,
    budget_for,
    cut,
)
from tpuemb_cli.model.optimizers import FLOAT_BYTES
from tpuemb_cli.model.words import plural, printable
from tpuemb_cli.spec.sparsecore_memory import ENGINE, SparseCoreMemory

if TYPE_CHECKING:
    from tpuemb_cli.spec.sparsecore import Plan, SparseCoreError


ENGINE_LINE = (
    f"engine: {ENGINE} -- the spec has a sparse_core section; one variable per stack and slot "
    "variable, padded, split evenly over the SparseCores"
)
NOT_COUNTED = (
    "not counted (so this is a lower bound): activations, the SparseCores' input and "
    "deduplication buffers, XLA's working set"
)
NO_TPU = (
    "no TPU named: --tpu CHIP, `tpu` in [tool.tpuemb] or the spec's accelerator compares this "
    "with a chip's HBM"
)


def chip_total(memory: SparseCoreMemory) -> str:
    """``1.5 GiB a chip (4 SparseCores x 389.6 MiB)``: the figure both views show."""
    return (
        f"{size(memory.per_chip)} a chip ({memory.sparse_cores_per_chip} SparseCores x "
        f"{size(memory.per_sparse_core)})"
    )


def _padding(memory: SparseCoreMemory) -> str:
    share = memory.padding / memory.total if memory.total else 0.0
    return (
        f"padding: {size(memory.padding)} of the slice's {size(memory.total)} ({share:.1%}): "
        f"rows to a multiple of 8 x {memory.num_sparse_cores:,} SparseCores, widths to a "
        "multiple of 8 (`tpuemb explain` shows each table's)"
    )


def _chip_verdict(memory: SparseCoreMemory, chip: Chip) -> ChipVerdict:
    hbm = chip.hbm_bytes.value
    if hbm is None:
        return ChipVerdict(chip.name, None)
    per_chip = memory.per_chip
    budget = budget_for(per_chip, hbm)
    advice: tuple[str, ...] = ()
    if budget is not None:
        sgd = memory.parameters_per_chip
        cheaper = (
            "  cheaper optimizer state: none (no stack has a slot variable)"
            if sgd == per_chip
            else f"  cheaper optimizer state: SGD on every table (no slot variables): {size(sgd)} "
            f"a chip ({'enough' if sgd <= budget else 'not enough'})"
        )
        advice = (
            "  more chips: each chip holds 1/replicas of every stack (topology.num_hosts x "
            "cores_per_host / num_cores_per_replica)",
            cheaper,
        )
    return ChipVerdict(
        chip.name,
        hbm,
        per_chip,
        unit="chip",
        what="tables",
        exceeded="the tables alone exceed a chip's HBM",
        ask="help",
        advice=advice,
    )


def cannot_run(chip: Chip | None) -> str:
    """Why TPUEmbeddingV2 cannot run on ``chip`` at all: TensorFlow's refusal of the chip, or
    no SparseCores ("" when it can, or no chip is named)."""
    if chip is None:
        return ""
    if chip.tensorflow_refusal:
        return chip.tensorflow_refusal
    if not chip.sparse_cores.value:
        return (
            f"TPU {chip.name} has no SparseCores tpuemb knows of (docs/memory.md): "
            "TPUEmbeddingV2 puts the stacks on SparseCores"
        )
    return ""


def _mismatch(memory: SparseCoreMemory, chip: Chip | None, tpu: Accelerator | None) -> str:
    """When the slice named is not the one the spec's topology lays out: other chips, or
    another number of SparseCores a chip."""
    said = []
    if tpu is not None and tpu.chips is not None and tpu.chips != memory.num_partitions:
        said.append(
            f"a {tpu.describe()}, but the spec's topology has "
            f"{plural(memory.num_partitions, 'chip')}"
        )
    known = chip.sparse_cores.value if chip is not None else None
    if chip is not None and known and known != memory.sparse_cores_per_chip:
        said.append(
            f"TPU {chip.name} has {known} SparseCores a chip, the layout counts "
            f"{memory.sparse_cores_per_chip}"
        )
    if not said:
        return ""
    return f"the TPU does not match the spec: {'; '.join(said)}; the figures are the spec's"


def _stacks(memory: SparseCoreMemory) -> tuple[StackSummary, ...]:
    return tuple(
        StackSummary(
            stack.name,
            stack.tables,
            stack.rows,
            stack.array_bytes * len(stack.arrays),
            stack.padding_values * FLOAT_BYTES * len(stack.arrays),
        )
        for stack in memory.stacks
    )


def memory_report(
    name: str, layout: Plan | SparseCoreError | None, memory: SparseCoreMemory | None,
    chip: Chip | None, tpu: Accelerator | None = None,
) -> MemoryReport:  # fmt: skip
    """A SparseCore spec's memory (``memory``: the model of ``layout``, or None when the spec
    cannot be laid out, ``layout`` saying why) as a ``MemoryReport``; ``tpu``: the slice
    named, if one was."""
    named = tpu.name if tpu is not None else chip.name if chip is not None else ""
    if memory is None:
        header = f"{printable(name)} (TPUEmbeddingV2 on SparseCores)"
        prose = (
            f"{header}\n{ENGINE_LINE}\n\nnot laid out: {printable(str(layout))}\n"
            "(`tpuemb compile --target sparsecore` says the same)\n"
        )
        refusal = {"laid_out": False, "reason": str(layout), "tpu": None}
        return MemoryReport(
            "sparsecore",
            name,
            refusal,
            prose=prose,
            accelerator=named,
            cannot_run=cannot_run(chip),
            unsized=f"not laid out: {layout}",
        )
    total = memory.per_sparse_core
    fields: dict[str, Any] = {
        "laid_out": True,
        "chips": memory.num_partitions,
        "sparse_cores_per_chip": memory.sparse_cores_per_chip,
        "sparse_cores": memory.num_sparse_cores,
        "per_sparse_core_bytes": memory.per_sparse_core,
        "per_chip_bytes": memory.per_chip,
        "total_bytes": memory.total,
        "padding_bytes": memory.padding,
        "stacks": [
            {
                "name": stack.name,
                "tables": list(stack.tables),
                "shape": [stack.rows, stack.width],
                "rows_per_sparse_core": stack.rows_per_sparse_core,
                "arrays": list(stack.arrays),
                "bytes_per_array": stack.array_bytes,
                "per_sparse_core_bytes": stack.per_sparse_core_bytes,
                "per_chip_bytes": stack.per_sparse_core_bytes * memory.sparse_cores_per_chip,
                "share": stack.per_sparse_core_bytes / total if total else 0.0,
            }
            for stack in memory.stacks
        ],
        "tpu": None,
    }
    if chip is not None:
        hbm = chip.hbm_bytes.value
        found: dict[str, Any] = {"chip": chip.name, "hbm_per_chip_bytes": hbm}
        if hbm is not None:
            found |= {
                "fits": memory.per_chip <= hbm,
                "share": memory.per_chip / hbm,
                "warning_percent": WARNING_PERCENT,
                "per_chip_bytes_with_sgd": memory.parameters_per_chip,
            }
        fields["tpu"] = found
    parameters = memory.parameters_per_chip
    return MemoryReport(
        "sparsecore",
        name,
        fields,
        accelerator=named,
        cannot_run=cannot_run(chip),
        mismatch=_mismatch(memory, chip, tpu),
        stacks=_stacks(memory),
        unit="chip",
        used=memory.per_chip,
        breakdown=(("parameters", parameters), ("optimizer state", memory.per_chip - parameters)),
        heading=f"{printable(name)} (TPUEmbeddingV2 on SparseCores): the stacked tables' "
        f"variables on each of {plural(memory.num_sparse_cores, 'SparseCore')} "
        f"({plural(memory.num_partitions, 'chip')} x {memory.sparse_cores_per_chip}; rows x "
        "width: a SparseCore's rows of the stack)",
        engine_line=ENGINE_LINE,
        columns=("stack", "tables", "rows x width", "arrays", "a SparseCore", "a chip"),
        rows=tuple(
            (
                f"{number} {cut(stack.name)}",
                str(len(stack.tables)),
                f"{stack.rows_per_sparse_core:,} x {stack.width:,}",
                f"{len(stack.arrays)} ({', '.join(stack.arrays)})",
                size(stack.per_sparse_core_bytes),
                size(stack.per_sparse_core_bytes * memory.sparse_cores_per_chip),
            )
            for number, stack in enumerate(memory.stacks, 1)
        ),
        shares=tuple(
            stack.per_sparse_core_bytes / total if total else 0.0 for stack in memory.stacks
        ),
        notes=(
            f"total: {chip_total(memory)}; {memory.per_chip:,} bytes a chip",
            _padding(memory),
            NOT_COUNTED,
        ),
        verdict=() if chip is not None else (NO_TPU,),
        chip=_chip_verdict(memory, chip) if chip is not None else None,
    )
