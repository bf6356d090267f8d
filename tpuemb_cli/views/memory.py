"""`tpuemb explain --memory`: what each table takes on a core, and whether it fits a chip.

The figures are ``model.memory``'s (TensorFlow's own shapes); this module only lays them out: a
table, largest first, with a bar of each table's share of the fullest core; the total against the
chip's HBM when the chip is known; and what would make it fit (more cores, cheaper optimizer
state). ``memory_json`` is the same as a JSON document (``--format json``): model/memory_record's
report, rendered by views/memory_json.
"""

from __future__ import annotations

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
from tpuemb_cli.model.memory_record import hot_ids, largest_first, memory_report, slice_mismatch
from tpuemb_cli.model.words import count, plural, printable
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.views.memory_json import render_json
from tpuemb_cli.views.memory_parts import bar, hbm_verdict
from tpuemb_cli.views.text import text_of

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


def _verdict(config: TPUEmbeddingConfiguration, memory: Memory, chip: Chip | None) -> list[str]:
    if chip is None:
        return [
            "no TPU named: --tpu CHIP, `tpu` in [tool.tpuemb] or a spec's accelerator "
            "compares this with a chip's HBM"
        ]
    hbm = chip.hbm_per_core
    if hbm is None:
        return [f"TPU {chip.name}: its HBM is not known (docs/memory.md); nothing to compare with"]
    per_core = memory.per_core
    devices = plural(chip.devices_per_chip or 0, "core")
    lines = [
        f"TPU {chip.name}: {size(hbm)} of HBM a core ({devices} a chip); the tables take "
        f"{per_core / hbm:.1%} of it"
    ]
    said, budget = hbm_verdict(per_core, hbm, "the tables alone exceed a core's HBM", "fit")
    lines.append(said)
    if budget is not None:
        aim = "fit" if budget == hbm else f"leave {100 - WARNING_PERCENT}%"
        lines += _advice(config, memory, chip, budget, aim)
    return lines


def explain_memory(
    name: str,
    config: TPUEmbeddingConfiguration,
    memory: Memory,
    chip: Chip | None,
    header: str = "",
    tpu: Accelerator | None = None,
) -> str:
    """The human report of ``config``'s memory, ``memory`` (``model.memory.model``'s);
    ``header``: what the file is, if not a config."""
    if config.num_tensor_cores < 1:
        return (
            f"{printable(name)}{header}\n\nnum_tensor_cores is {config.num_tensor_cores}: no cores "
            "to put the tables on (`tpuemb check` reports it)\n"
        )
    total = memory.per_core
    rows = [["table", "rows x dim", "arrays", "on a core", "share"]]
    for table in largest_first(memory):
        share = table.shard_bytes / total if total else 0.0
        rows.append(
            [
                printable(_label(table)),
                f"{table.rows:,} x {table.dimension:,}",
                f"{len(table.arrays)} ({', '.join(table.arrays)})",
                size(table.shard_bytes),
                f"{bar(share)} {share:6.1%}",
            ]
        )
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = [
        f"{printable(name)}{header}: the embedding tables on each of "
        f"{plural(memory.shards, 'core')} (one shard of every table a core; the first core "
        "holds the largest shards)",
        ENGINE,
        "",
    ]
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += ["", f"total on the fullest core: {size(total)} ({total:,} bytes)"]
    for refused in memory.refused:
        label = printable(refused.name or f"#{refused.table_index}")
        lines.append(f"not counted: table {label}: TensorFlow would refuse it: {refused.reason}")
    hot = hot_ids(config)
    if hot:
        lines.append(
            f"hot-id replication: on for {plural(hot, 'table')}: copies of hot rows are added at "
            "run time, as many as the engine decides; not in this estimate"
        )
    mismatch = slice_mismatch(config, tpu)
    lines += [NOT_COUNTED, PADDING, "", *([mismatch] if mismatch else [])]
    lines += _verdict(config, memory, chip)
    return text_of(lines)


def memory_json(
    name: str,
    config: TPUEmbeddingConfiguration,
    memory: Memory,
    chip: Chip | None,
    tpu: Accelerator | None = None,
) -> str:
    """The same report as a JSON document (model/memory_record's report, views/memory_json)."""
    return render_json(memory_report(name, config, memory, chip, tpu))
