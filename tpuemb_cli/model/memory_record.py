"""The TensorFlow (TensorCore) memory model's adapter: ``model.memory``'s figures for a
TPUEmbeddingConfiguration as the one ``MemoryReport`` (model/memory_report) ``explain --memory``
renders. Also what its text view shares with it: the tables largest first, the hot-id tables, the
slice that does not match the config."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.model.accelerators import Accelerator
from tpuemb_cli.model.advice import Advice, Demand, smallest_slice
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import (
    GRADIENT_ACCUMULATOR,
    WARNING_PERCENT,
    Memory,
    TableMemory,
    cheaper,
    size,
)
from tpuemb_cli.model.memory_report import ChipVerdict, MemoryReport, budget_for
from tpuemb_cli.model.words import count, plural, printable
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

PRECISION = (
    "lower precision is not an option: TensorFlow's load and retrieve ops hold every state "
    "array as float32, and the config has no field for a narrower type"
)
NOT_COUNTED = (
    "not counted (so this is a lower bound): activations, the embedding engine's deduplication "
    "and gradient buffers, XLA's working set"
)
PADDING = "padding: none in TensorFlow's shapes; the on-chip layout is not public"
ENGINE = (
    "engine: TensorCore (TPUEmbedding: the TPUEmbeddingConfiguration's tables, sharded over the "
    "cores); a spec with a sparse_core section is reported for SparseCores instead"
)
NO_TPU = (
    "no TPU named: --tpu CHIP, `tpu` in [tool.tpuemb] or a spec's accelerator compares this "
    "with a chip's HBM"
)


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
        f"{count(config.num_tensor_cores)}; the figures are for the config's cores"
    )


def _label(table: TableMemory) -> str:
    return table.name or f"#{table.table_index}"


def _more_cores(advice: Advice, chip: Chip, what: str) -> str:
    """The advice's line: the smallest real slice that would do, or why there is none."""
    if advice.fits is not None:
        return (
            f"  more cores: a {advice.fits.describe()} would {what} (num_tensor_cores "
            f"{count(advice.fits.devices or 0)})"
        )
    if advice.largest is None:
        return f"  more cores: tpuemb knows no {chip.name} slice sizes to suggest"
    return (
        f"  more cores: cannot help: not even a {advice.largest.describe()}, the largest "
        f"{chip.name} slice, would {what}"
    )


def _advice(
    config: TPUEmbeddingConfiguration, memory: Memory, chip: Chip, budget: int, what: str
) -> list[str]:
    """What would bring the fullest core to ``budget`` bytes (``what``: "fit", "leave room")."""
    lines = [_more_cores(smallest_slice(Demand(memory, config), chip, budget), chip, what)]
    without, sgd = cheaper(memory)
    if any(GRADIENT_ACCUMULATOR in table.arrays for table in memory.tables):
        verdict = "enough" if without <= budget else "not enough"
        lines.append(
            f"  cheaper optimizer state: gradient accumulation off everywhere: {size(without)} "
            f"a core ({verdict})"
        )
    verdict = "enough" if sgd <= budget else "not enough"
    lines.append(
        f"  cheaper optimizer state: SGD without accumulation on every table: {size(sgd)} a "
        f"core ({verdict})"
    )
    lines.append(f"  {PRECISION}")
    return lines


def _chip_verdict(config: TPUEmbeddingConfiguration, memory: Memory, chip: Chip) -> ChipVerdict:
    hbm = chip.hbm_per_core
    if hbm is None:
        return ChipVerdict(chip.name, None)
    per_core = memory.per_core
    budget = budget_for(per_core, hbm)
    advice: list[str] = []
    if budget is not None:
        aim = "fit" if budget == hbm else f"leave {100 - WARNING_PERCENT}%"
        advice = _advice(config, memory, chip, budget, aim)
    return ChipVerdict(
        chip.name,
        hbm,
        per_core,
        unit="core",
        unit_note=f" ({plural(chip.devices_per_chip or 0, 'core')} a chip)",
        what="tables",
        exceeded="the tables alone exceed a core's HBM",
        ask="fit",
        advice=tuple(advice),
    )


def _notes(config: TPUEmbeddingConfiguration, memory: Memory) -> list[str]:
    total = memory.per_core
    lines = [f"total on the fullest core: {size(total)} ({total:,} bytes)"]
    for refused in memory.refused:
        label = printable(refused.name or f"#{refused.table_index}")
        lines.append(f"not counted: table {label}: TensorFlow would refuse it: {refused.reason}")
    hot = hot_ids(config)
    if hot:
        lines.append(
            f"hot-id replication: on for {plural(hot, 'table')}: copies of hot rows are added at "
            "run time, as many as the engine decides; not in this estimate"
        )
    return [*lines, NOT_COUNTED, PADDING]


def _named(chip: Chip | None, tpu: Accelerator | None) -> str:
    """The accelerator named, as tpuemb writes it ("" when none was)."""
    return tpu.name if tpu is not None else chip.name if chip is not None else ""


def breakdown(memory: Memory) -> tuple[tuple[str, int], ...]:
    """What the fullest core holds: the tables' parameters, then their optimizer state (every
    other state array: slots and gradient accumulators), each array a shard's rows x dimension
    float32 values."""
    parameters = state = 0
    for table in memory.tables:
        each = table.shard_bytes // len(table.arrays) if table.arrays else 0
        parameters += each
        state += table.shard_bytes - each
    return (("parameters", parameters), ("optimizer state", state))


def memory_report(
    name: str,
    config: TPUEmbeddingConfiguration,
    memory: Memory,
    chip: Chip | None,
    tpu: Accelerator | None = None,
    header: str = "",
) -> MemoryReport:
    """``config``'s memory (``memory``: ``model.memory.model``'s) as a ``MemoryReport``;
    ``header``: what the file is, if not a config."""
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
    if not cores:
        prose = (
            f"{printable(name)}{header}\n\nnum_tensor_cores is {config.num_tensor_cores}: no cores "
            "to put the tables on (`tpuemb check` reports it)\n"
        )
        return MemoryReport(
            "tensorcore",
            name,
            fields,
            prose=prose,
            accelerator=_named(chip, tpu),
            cannot_run=chip.tensorflow_refusal if chip is not None else "",
            unsized=f"num_tensor_cores is {config.num_tensor_cores}: no cores to put the tables on",
        )
    tables = largest_first(memory)
    mismatch = slice_mismatch(config, tpu)
    return MemoryReport(
        "tensorcore",
        name,
        fields,
        accelerator=_named(chip, tpu),
        cannot_run=chip.tensorflow_refusal if chip is not None else "",
        mismatch=mismatch or "",
        unit="core",
        used=total,
        breakdown=breakdown(memory),
        heading=f"{printable(name)}{header}: the embedding tables on each of "
        f"{plural(memory.shards, 'core')} (one shard of every table a core; the first core "
        "holds the largest shards)",
        engine_line=ENGINE,
        columns=("table", "rows x dim", "arrays", "on a core"),
        rows=tuple(
            (
                printable(_label(table)),
                f"{table.rows:,} x {table.dimension:,}",
                f"{len(table.arrays)} ({', '.join(table.arrays)})",
                size(table.shard_bytes),
            )
            for table in tables
        ),
        shares=tuple(table.shard_bytes / total if total else 0.0 for table in tables),
        notes=tuple(_notes(config, memory)),
        verdict=() if chip else (NO_TPU,),
        chip=_chip_verdict(config, memory, chip) if chip is not None else None,
    )
