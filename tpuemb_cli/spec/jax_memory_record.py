"""The jax-tpu-embedding memory model's adapter: ``spec.jax_memory``'s figures for an
EmbeddingSpecProto as the one ``MemoryReport`` (model/memory_report) ``explain --memory``
renders; and why there are no per-device figures, which its text view says too."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import WARNING_PERCENT
from tpuemb_cli.model.memory_report import MemoryReport
from tpuemb_cli.spec.jax_memory import JaxMemory


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


def memory_report(name: str, memory: JaxMemory, chip: Chip | None) -> MemoryReport:
    """An EmbeddingSpecProto's memory as a ``MemoryReport``."""
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
        }
        if per_device:
            entry |= {
                "coo_buffer_size_per_device": stack.coo_size(per_device),
                "variables_per_device_bytes": stack.variables(per_device),
                "buffers_per_device_bytes": stack.buffers(per_device),
                "coo_buffer_refused": stack.refused(per_device),
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
        "per_device": problem or None,
        "tpu": None,
    }
    if chip is not None:
        hbm = chip.hbm_per_core
        tpu: dict[str, Any] = {"chip": chip.name, "hbm_per_device_bytes": hbm}
        if hbm is not None and per_device:
            tpu |= {
                "fits": memory.per_device_bytes <= hbm,
                "share": memory.per_device_bytes / hbm,
                "warning_percent": WARNING_PERCENT,
                "per_device_bytes_with_sgd": memory.parameters_per_device,
            }
        fields["tpu"] = tpu
    return MemoryReport("jax", name, fields)
