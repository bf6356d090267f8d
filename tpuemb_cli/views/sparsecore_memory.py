"""`tpuemb explain --memory` on a SparseCore spec, and the memory lines `tpuemb explain` adds to its
stacking: what TPUEmbeddingV2's variables take on each SparseCore and each chip.

The figures are ``spec.sparsecore_memory``'s (the stacked tables and slot variables TensorFlow
creates, padded as the layout says); this module only lays them out. Both views write the chip's
total with ``chip_total``, so they cannot disagree. ``sparsecore_memory_json`` is the JSON
document (``--format json``), with the TensorCore report's ``version`` and an ``engine``.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.words import plural, printable
from tpuemb_cli.spec.sparsecore_memory import ENGINE, SparseCoreMemory, StackMemory
from tpuemb_cli.spec.sparsecore_memory_record import memory_report
from tpuemb_cli.views.memory_json import render_json
from tpuemb_cli.views.memory_parts import bar, cut, hbm_verdict
from tpuemb_cli.views.text import text_of

if TYPE_CHECKING:
    from tpuemb_cli.spec.sparsecore import Plan, SparseCoreError

WIDTH = 100  # prose lines in ``explain``'s stacking section
ENGINE_LINE = (
    f"engine: {ENGINE} -- the spec has a sparse_core section; one variable per stack and slot "
    "variable, padded, split evenly over the SparseCores"
)
NOT_COUNTED = (
    "not counted (so this is a lower bound): activations, the SparseCores' input and "
    "deduplication buffers, XLA's working set"
)


def chip_total(memory: SparseCoreMemory) -> str:
    """``1.5 GiB a chip (4 SparseCores x 389.6 MiB)``: the figure both views show."""
    return (
        f"{size(memory.per_chip)} a chip ({memory.sparse_cores_per_chip} SparseCores x "
        f"{size(memory.per_sparse_core)})"
    )


def stack_memory_line(stack: StackMemory, memory: SparseCoreMemory) -> str:
    """The memory line of one stack in ``explain``'s stacking section."""
    per_chip = stack.per_sparse_core_bytes * memory.sparse_cores_per_chip
    return (
        f"  memory: {size(stack.per_sparse_core_bytes)} a SparseCore, {size(per_chip)} a chip "
        f"({', '.join(stack.arrays)})"
    )


def explain_lines(memory: SparseCoreMemory) -> list[str]:
    """What ``explain`` says of the memory after the stacks: the total ``--memory`` reports."""
    return textwrap.wrap(
        "SparseCore memory (TPUEmbeddingV2's variables: each stack's parameters and slot "
        f"variables): {chip_total(memory)}, as `tpuemb explain --memory` reports",
        WIDTH,
    )


def _label(number: int, stack: StackMemory) -> str:
    return f"{number} {cut(stack.name)}"


def _padding(memory: SparseCoreMemory) -> str:
    share = memory.padding / memory.total if memory.total else 0.0
    return (
        f"padding: {size(memory.padding)} of the slice's {size(memory.total)} ({share:.1%}): "
        f"rows to a multiple of 8 x {memory.num_sparse_cores:,} SparseCores, widths to a "
        "multiple of 8 (`tpuemb explain` shows each table's)"
    )


def _chip_note(memory: SparseCoreMemory, chip: Chip) -> list[str]:
    """When the chip compared with is not the one the layout counted SparseCores for."""
    known = chip.sparse_cores.value
    if known == memory.sparse_cores_per_chip:
        return []
    has = f"has {known}" if known else "has a number of SparseCores not known (docs/memory.md)"
    return [
        f"note: the layout counts {memory.sparse_cores_per_chip} SparseCores a chip (the "
        f"spec's topology); TPU {chip.name} {has}"
    ]


def _verdict(memory: SparseCoreMemory, chip: Chip | None) -> list[str]:
    if chip is None:
        return [
            "no TPU named: --tpu CHIP, `tpu` in [tool.tpuemb] or the spec's accelerator "
            "compares this with a chip's HBM"
        ]
    hbm = chip.hbm_bytes.value
    if hbm is None:
        return [f"TPU {chip.name}: its HBM is not known (docs/memory.md); nothing to compare with"]
    per_chip = memory.per_chip
    lines = [
        f"TPU {chip.name}: {size(hbm)} of HBM a chip; the tables take {per_chip / hbm:.1%} of it",
        *_chip_note(memory, chip),
    ]
    said, budget = hbm_verdict(per_chip, hbm, "the tables alone exceed a chip's HBM", "help")
    lines.append(said)
    if budget is None:
        return lines
    sgd = memory.parameters_per_chip
    cheaper = (
        "  cheaper optimizer state: none (no stack has a slot variable)"
        if sgd == per_chip
        else f"  cheaper optimizer state: SGD on every table (no slot variables): {size(sgd)} a "
        f"chip ({'enough' if sgd <= budget else 'not enough'})"
    )
    return [
        *lines,
        "  more chips: each chip holds 1/replicas of every stack (topology.num_hosts x "
        "cores_per_host / num_cores_per_replica)",
        cheaper,
    ]


def explain_sparsecore_memory(
    name: str, layout: Plan | SparseCoreError | None, memory: SparseCoreMemory | None,
    chip: Chip | None,
) -> str:  # fmt: skip
    """The human report of a SparseCore spec's memory (``memory``: the model of ``layout``, or
    None when the spec cannot be laid out, ``layout`` saying why)."""
    header = f"{printable(name)} (TPUEmbeddingV2 on SparseCores)"
    if memory is None:
        return (
            f"{header}\n{ENGINE_LINE}\n\nnot laid out: {printable(str(layout))}\n"
            "(`tpuemb compile --target sparsecore` says the same)\n"
        )
    rows = [["stack", "tables", "rows x width", "arrays", "a SparseCore", "a chip", "share"]]
    total = memory.per_sparse_core
    for number, stack in enumerate(memory.stacks, 1):
        share = stack.per_sparse_core_bytes / total if total else 0.0
        rows.append(
            [
                _label(number, stack),
                str(len(stack.tables)),
                f"{stack.rows_per_sparse_core:,} x {stack.width:,}",
                f"{len(stack.arrays)} ({', '.join(stack.arrays)})",
                size(stack.per_sparse_core_bytes),
                size(stack.per_sparse_core_bytes * memory.sparse_cores_per_chip),
                f"{bar(share)} {share:6.1%}",
            ]
        )
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = [
        f"{header}: the stacked tables' variables on each of "
        f"{plural(memory.num_sparse_cores, 'SparseCore')} ({plural(memory.num_partitions, 'chip')}"
        f" x {memory.sparse_cores_per_chip}; rows x width: a SparseCore's rows of the stack)",
        ENGINE_LINE,
        "",
    ]
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += [
        "",
        f"total: {chip_total(memory)}; {memory.per_chip:,} bytes a chip",
        _padding(memory),
        NOT_COUNTED,
        "",
        *_verdict(memory, chip),
    ]
    return text_of(lines)


def sparsecore_memory_json(
    name: str, layout: Plan | SparseCoreError | None, memory: SparseCoreMemory | None,
    chip: Chip | None,
) -> str:  # fmt: skip
    """The same report as a JSON document (spec/sparsecore_memory_record's report,
    views/memory_json)."""
    return render_json(memory_report(name, layout, memory, chip))
