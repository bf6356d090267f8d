"""`tpuemb explain --memory` on a SparseCore spec, and the memory lines `tpuemb explain` adds to its
stacking: what TPUEmbeddingV2's variables take on each SparseCore and each chip.

The figures are ``spec.sparsecore_memory``'s (the stacked tables and slot variables TensorFlow
creates, padded as the layout says) and the ``--memory`` report, wording included,
``spec.sparsecore_memory_record``'s, written by the one text and JSON renderers
(views/memory_text, views/memory_json). Both views write the chip's total with ``chip_total``,
so they cannot disagree.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import size
from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory, StackMemory
from tpuemb_cli.spec.sparsecore_memory_record import chip_total, memory_report
from tpuemb_cli.views.memory_json import render_json
from tpuemb_cli.views.memory_text import render_text

if TYPE_CHECKING:
    from tpuemb_cli.spec.sparsecore import Plan, SparseCoreError

WIDTH = 100  # prose lines in ``explain``'s stacking section


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


def explain_sparsecore_memory(
    name: str, layout: Plan | SparseCoreError | None, memory: SparseCoreMemory | None,
    chip: Chip | None,
) -> str:  # fmt: skip
    """The human report of a SparseCore spec's memory (``memory``: the model of ``layout``, or
    None when the spec cannot be laid out, ``layout`` saying why)."""
    return render_text(memory_report(name, layout, memory, chip))


def sparsecore_memory_json(
    name: str, layout: Plan | SparseCoreError | None, memory: SparseCoreMemory | None,
    chip: Chip | None,
) -> str:  # fmt: skip
    """The same report as a JSON document (spec/sparsecore_memory_record's report,
    views/memory_json)."""
    return render_json(memory_report(name, layout, memory, chip))
