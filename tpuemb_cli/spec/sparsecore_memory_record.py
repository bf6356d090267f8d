"""The SparseCore (TPUEmbeddingV2) memory model's adapter: ``spec.sparsecore_memory``'s figures
as the one ``MemoryReport`` (model/memory_report) ``explain --memory`` renders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import WARNING_PERCENT
from tpuemb_cli.model.memory_report import MemoryReport
from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory

if TYPE_CHECKING:
    from tpuemb_cli.spec.sparsecore import Plan, SparseCoreError


def memory_report(
    name: str, layout: Plan | SparseCoreError | None, memory: SparseCoreMemory | None,
    chip: Chip | None,
) -> MemoryReport:  # fmt: skip
    """A SparseCore spec's memory (``memory``: the model of ``layout``, or None when the spec
    cannot be laid out, ``layout`` saying why) as a ``MemoryReport``."""
    if memory is None:
        return MemoryReport(
            "sparsecore", name, {"laid_out": False, "reason": str(layout), "tpu": None}
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
        tpu: dict[str, Any] = {"chip": chip.name, "hbm_per_chip_bytes": hbm}
        if hbm is not None:
            tpu |= {
                "fits": memory.per_chip <= hbm,
                "share": memory.per_chip / hbm,
                "warning_percent": WARNING_PERCENT,
                "per_chip_bytes_with_sgd": memory.parameters_per_chip,
            }
        fields["tpu"] = tpu
    return MemoryReport("sparsecore", name, fields)
