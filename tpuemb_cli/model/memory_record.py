"""The TensorFlow (TensorCore) memory model's adapter: ``model.memory``'s figures for a
TPUEmbeddingConfiguration as the one ``MemoryReport`` (model/memory_report) ``explain --memory``
renders. Also what its text view shares with it: the tables largest first, the hot-id tables, the
slice that does not match the config."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.model.accelerators import Accelerator
from tpuemb_cli.model.advice import Demand, smallest_slice
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import WARNING_PERCENT, Memory, TableMemory, cheaper
from tpuemb_cli.model.memory_report import MemoryReport
from tpuemb_cli.model.words import count
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration


def hot_ids(config: TPUEmbeddingConfiguration) -> int:
    """Tables with hot-id replication on: they keep extra copies of hot rows."""
    return sum(
        1
        for table in config.table_descriptor
        if table.optimization_parameters.hot_id_replication_configuration.status == 1
    )


def largest_first(memory: Memory) -> list[TableMemory]:
    return sorted(memory.tables, key=lambda t: (-t.shard_bytes, t.table_index))


def slice_mismatch(config: TPUEmbeddingConfiguration, tpu: Accelerator | None) -> str | None:
    """What to say when the named slice has another number of TensorFlow cores than the
    config's ``num_tensor_cores`` (None when they agree or no slice size was named)."""
    devices = tpu.devices if tpu is not None else None
    if tpu is None or devices is None or devices == config.num_tensor_cores:
        return None
    return (
        f"the slice does not match the config: a {tpu.describe()}, but num_tensor_cores is "
        f"{count(config.num_tensor_cores)}; the figures below are for the config's cores"
    )


def memory_report(
    name: str,
    config: TPUEmbeddingConfiguration,
    memory: Memory,
    chip: Chip | None,
    tpu: Accelerator | None = None,
) -> MemoryReport:
    """``config``'s memory (``memory``: ``model.memory.model``'s) as a ``MemoryReport``."""
    total = memory.per_core
    cores = config.num_tensor_cores >= 1
    fields: dict[str, Any] = {
        "cores": config.num_tensor_cores,
        "per_core_bytes": total if cores else None,
        "tables": [
            {
                "index": table.table_index,
                "name": table.name,
                "rows_per_shard": table.rows,
                "dimension": table.dimension,
                "state_arrays": list(table.arrays),
                "bytes_per_shard": table.shard_bytes,
                "share": table.shard_bytes / total if total else 0.0,
            }
            for table in largest_first(memory)
        ]
        if cores
        else [],
        "refused": [
            {"index": r.table_index, "name": r.name, "reason": r.reason} for r in memory.refused
        ],
        "hot_id_replication_tables": hot_ids(config),
        "tpu": None,
    }
    if chip is not None:
        hbm = chip.hbm_per_core
        found: dict[str, Any] = {
            "chip": chip.name,
            "hbm_per_core_bytes": hbm,
            "accelerator": tpu.name if tpu is not None else chip.name,
            "slice_cores": tpu.devices if tpu is not None else None,
            "slice_mismatch": slice_mismatch(config, tpu),
        }
        if hbm is not None and cores:
            without, sgd = cheaper(memory)
            budget = hbm * WARNING_PERCENT // 100
            demand = Demand(memory, config)
            fit, under = (smallest_slice(demand, chip, limit).fits for limit in (hbm, budget))
            found |= {
                "fits": total <= hbm,
                "share": total / hbm,
                "warning_percent": WARNING_PERCENT,
                # The smallest real slices of the chip (None: none does, or none is known).
                "smallest_core_count_that_fits": fit.devices if fit else None,
                "smallest_slice_that_fits": fit.name if fit else None,
                "smallest_core_count_under_warning": under.devices if under else None,
                "smallest_slice_under_warning": under.name if under else None,
                "per_core_bytes_without_gradient_accumulation": without,
                "per_core_bytes_with_sgd": sgd,
            }
        fields["tpu"] = found
    return MemoryReport("tensorcore", name, fields)
