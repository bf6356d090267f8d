"""The jax-tpu-embedding memory model's adapter: ``spec.jax_memory``'s figures for an
EmbeddingSpecProto as the one ``MemoryReport`` (model/memory_report) ``explain --memory``
renders; and why there are no per-device figures, which its text view says too."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.jax.spec.memory import COO_ARRAYS, INT_MAX, SLOTS, JaxMemory
from tpuemb_cli.load.limits import shown
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
from tpuemb_cli.model.words import plural, printable

ENGINE_LINE = (
    "engine: jax-tpu-embedding (SparseCore) -- one variable per stack and slot variable, "
    "split evenly over num_sparsecores SparseCores; one COO input buffer per stack and device"
)
NO_OPTIMIZER = (
    "optimizer: not in the proto (a 0.1.0 EmbeddingSpecProto has no TableSpecProto.optimizer, or "
    "the optimizer is CUSTOM) for {stacks}: their parameters only are counted, no slot variable"
)
BUFFERS = (
    "input buffers: the library's theoretical maximum COO buffer (RoundUpTo(max_ids_per_partition"
    ", 8) x SparseCores a device x SparseCores), its default without a suggested_coo_buffer_size; "
    f"{', '.join(COO_ARRAYS)} of that many 4-byte elements, and the row pointers; minibatching "
    "off (on: 64 times the COO buffer)"
)
MEASURED = (
    "what the library allocates once update_preprocessing_parameters set each measured stack's "
    "limits and suggested_coo_buffer_size_per_device from the statistics: the required buffer of "
    "its fullest SparseCore x SparseCores a device, rounded up to 8 a SparseCore; a stack not "
    "measured keeps its limits' buffers"
)
NOT_COUNTED = (
    "not counted (so this is a lower bound): activations, the dense model, XLA's working set"
)


def device_problem(memory: JaxMemory, chip: Chip | None) -> str:
    """Why there are no per-device figures, or "" when there are."""
    empty = [stack.name for stack in memory.stacks if stack.num_sparsecores < 1]
    if empty:
        # Its rows split over no SparseCore: any figure, and a "fits", would be made up (TE681).
        return (
            f'per device: stack "{shown(empty[0])}" has num_sparsecores below 1 (TE681): its rows '
            "are split over no SparseCore, so the stacks cannot be sized"
        )
    if chip is None:
        return (
            "per device: no TPU named (--tpu CHIP or `tpu` in [tool.tpuemb]): a device holds its "
            "SparseCores' share, times the chip's SparseCores per device"
        )
    if memory.per_device is None:
        return (
            f"per device: TPU {chip.name} has no SparseCores per device known to "
            "jax-tpu-embedding (NUM_SC_PER_DEVICE_MAP); JAX SparseCore does not run on it"
        )
    if memory.devices is None:
        return (
            f"per device: the stacks' {memory.num_sparsecores:,} SparseCores are not a multiple "
            f"of TPU {chip.name}'s {memory.per_device} a device: the spec was made for another chip"
        )
    return ""


def _chip_verdict(memory: JaxMemory, chip: Chip) -> ChipVerdict:
    hbm = chip.hbm_per_core
    if hbm is None:
        return ChipVerdict(chip.name, None)
    used = memory.per_device_bytes
    budget = budget_for(used, hbm)
    advice: list[str] = []
    if budget is not None:
        sgd = memory.parameters_per_device
        advice = [
            "  more devices: the variables are split over every SparseCore (but the COO buffers "
            "grow with the SparseCores)",
            "  smaller input buffers: a suggested_coo_buffer_size_per_device from the library's "
            "preprocessing stats (`embedding.update_preprocessing_parameters`), or lower "
            "max_ids_per_partition",
        ]
        if memory.measured:
            measured = memory.measured_per_device_bytes
            advice.append(
                f"  the buffers the statistics measured (--stats): {size(measured)} a device "
                f"({'enough' if measured <= budget else 'not enough'})"
            )
        if sgd != used:
            advice.append(
                f"  cheaper optimizer state: SGD on every table (no slot variables): {size(sgd)} "
                f"a device ({'enough' if sgd <= budget else 'not enough'})"
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


def _rows(memory: JaxMemory, per_device: int | None) -> list[tuple[str, ...]]:
    rows = []
    measured = memory.measured  # a look at every stack: once, not once a stack
    for number, stack in enumerate(memory.stacks, 1):
        row = [
            f"{number} {cut(stack.name)}",
            str(len(stack.tables)),
            f"{stack.rows_per_sparse_core:,} x {stack.width:,}",
            f"{len(stack.arrays)} ({', '.join(stack.arrays)})",
            size(stack.variables_per_sparse_core),
            f"{stack.coo_per_sparse_core:,} ids",
        ]
        if measured:
            row.append(f"{stack.measured_ids:,}" if stack.measured_ids is not None else "-")
        if per_device:
            refused = stack.refused(per_device)
            row += [
                size(stack.variables(per_device)),
                "refused" if refused else size(stack.buffers(per_device)),
            ]
            if measured:
                row.append(size(stack.measured_buffers(per_device)) if stack.measured else "-")
        rows.append(tuple(row))
    return rows


def _notes(memory: JaxMemory, problem: str, per_device: int | None) -> list[str]:
    lines = []
    unknown = [stack.name for stack in memory.stacks if SLOTS.get(stack.optimizer) is None]
    if unknown:
        named = ", ".join(printable(n) for n in unknown[:3]) + (" ..." if len(unknown) > 3 else "")
        lines.append(NO_OPTIMIZER.format(stacks=named))
    lines.append(BUFFERS)
    if problem or per_device is None:
        return [*lines, NOT_COUNTED]
    for stack in memory.too_large():
        lines.append(
            f"COO buffer of {printable(stack.name)}: {stack.coo_size(per_device):,} elements, not "
            f"below INT_MAX ({INT_MAX:,}): the library refuses it (CHECK in "
            "ComputeCooBufferSizePerDevice; a limit past 32 bits: TypeError) and allocates "
            "nothing; not counted below"
        )
    lines.append(
        f"total: {size(memory.per_device_bytes)} a device ({memory.devices:,} devices x "
        f"{per_device} SparseCores): variables {size(memory.variables_per_device)}, input "
        f"buffers {size(memory.buffers_per_device)}; {memory.per_device_bytes:,} bytes a device"
    )
    if memory.measured:
        lines.append(
            f"at the measured sizes: {size(memory.measured_per_device_bytes)} a device, input "
            f"buffers {size(memory.measured_buffers_per_device)} ({MEASURED})"
        )
    return [*lines, NOT_COUNTED]


def _breakdown(memory: JaxMemory) -> tuple[tuple[str, int], ...]:
    """A device's bytes: the stacks' parameters, their slot variables, the input buffers."""
    buffers = memory.buffers_per_device
    parameters = memory.parameters_per_device - buffers  # what SGD everywhere would take
    variables = memory.variables_per_device
    return (
        ("parameters", parameters),
        ("optimizer state", variables - parameters),
        ("input buffers", buffers),
    )


def _mismatch(memory: JaxMemory, tpu: Accelerator | None) -> str:
    """When the slice named has another number of devices than the stacks are laid out for."""
    if tpu is None or memory.devices is None:
        return ""
    if tpu.devices is None:  # a chip named alone: its chips hold whole devices
        per_chip = tpu.chip.devices_per_chip
        if not per_chip or memory.devices % per_chip == 0:
            return ""
        return (
            f"no {tpu.chip.name} slice matches the spec: the stacks are laid out for "
            f"{plural(memory.devices, 'device')}, no whole number of {tpu.chip.name} chips "
            f"({per_chip} devices a chip); the figures are the spec's"
        )
    if tpu.devices == memory.devices:
        return ""
    return (
        f"the slice does not match the spec: a {tpu.name} is "
        f"{plural(tpu.devices, 'device')}, but the stacks are laid out "
        f"for {plural(memory.devices, 'device')}; the figures are the spec's"
    )


def memory_report(
    name: str, memory: JaxMemory, chip: Chip | None, tpu: Accelerator | None = None
) -> MemoryReport:
    """An EmbeddingSpecProto's memory as a ``MemoryReport``; ``tpu``: the slice named, if
    one was."""
    problem = device_problem(memory, chip)
    per_device = None if problem else memory.per_device
    stacks = []
    for stack in memory.stacks:
        entry: dict[str, Any] = {
            "name": stack.name,
            "tables": list(stack.tables),
            "shape": [stack.rows, stack.width],
            "rows_per_sparse_core": stack.rows_per_sparse_core,
            "arrays": list(stack.arrays),
            "optimizer": stack.optimizer or None,
            "variables_per_sparse_core_bytes": stack.variables_per_sparse_core,
            "max_ids_per_partition": stack.max_ids_per_partition,
            "coo_elements_per_sparse_core": stack.coo_per_sparse_core,
            "measured_max_ids": stack.measured_ids,
            "measured_required_buffer_size_per_sparse_core": stack.measured_buffer_per_sc,
        }
        if per_device:
            entry |= {
                "coo_buffer_size_per_device": stack.coo_size(per_device),
                "variables_per_device_bytes": stack.variables(per_device),
                "buffers_per_device_bytes": stack.buffers(per_device),
                "coo_buffer_refused": stack.refused(per_device),
                "measured_coo_buffer_size_per_device": stack.measured_coo_size(per_device),
                "measured_buffers_per_device_bytes": (
                    stack.measured_buffers(per_device) if stack.measured else None
                ),
            }
        stacks.append(entry)
    fields: dict[str, Any] = {
        "sparse_cores": memory.num_sparsecores,
        "sparse_cores_per_device": per_device,
        "devices": memory.devices if per_device else None,
        "optimizers_known": memory.optimizers_known,
        "minibatching": False,
        "stacks": stacks,
        "per_device_bytes": memory.per_device_bytes if per_device else None,
        "measured_per_device_bytes": (
            memory.measured_per_device_bytes if per_device and memory.measured else None
        ),
        "per_device": problem or None,
        "tpu": None,
    }
    if chip is not None:
        hbm = chip.hbm_per_core
        found: dict[str, Any] = {"chip": chip.name, "hbm_per_device_bytes": hbm}
        if hbm is not None and per_device:
            found |= {
                "fits": memory.per_device_bytes <= hbm,
                "share": memory.per_device_bytes / hbm,
                "warning_percent": WARNING_PERCENT,
                "per_device_bytes_with_sgd": memory.parameters_per_device,
            }
        fields["tpu"] = found
    columns = ["stack", "tables", "rows x dim", "arrays", "variables a SC", "COO a SC"]
    if memory.measured:
        columns.append("measured ids")
    if per_device:
        columns += ["variables a device", "buffers a device"]
        if memory.measured:
            columns.append("measured buffers")
    sized = bool(per_device)
    # JAX SparseCore does not run on a chip without SparseCores a device it knows.
    refused = chip is not None and memory.per_device is None
    return MemoryReport(
        "jax",
        name,
        fields,
        accelerator=tpu.name if tpu is not None else chip.name if chip is not None else "",
        cannot_run=problem.removeprefix("per device: ") if refused else "",
        unsized=problem.removeprefix("per device: ") if problem and not refused else "",
        mismatch=_mismatch(memory, tpu) if sized else "",
        stacks=tuple(
            StackSummary(
                stack.name,
                stack.tables,
                stack.rows,
                stack.variables_per_sparse_core * stack.num_sparsecores,
                None,
            )
            for stack in memory.stacks
        ),
        unit="device" if sized else "",
        used=memory.per_device_bytes if sized else None,
        breakdown=_breakdown(memory) if sized else (),
        heading=f"{printable(name)} (jax-tpu-embedding on SparseCores): each stack on each of "
        f"{plural(memory.num_sparsecores, 'SparseCore')} (rows x dim: a SparseCore's rows of the "
        "stack)",
        engine_line=ENGINE_LINE,
        columns=tuple(columns),
        rows=tuple(_rows(memory, per_device)),
        notes=tuple(_notes(memory, problem, per_device)),
        verdict=(problem,) if problem and not refused else (),
        chip=_chip_verdict(memory, chip) if chip is not None and not problem else None,
    )
