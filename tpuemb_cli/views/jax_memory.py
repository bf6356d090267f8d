"""`tpuemb explain --memory` on a JAX SparseCore ``EmbeddingSpecProto``: what jax-tpu-embedding
allocates on each SparseCore and each device -- every stack's variables and input buffers -- and,
with a TPU named, against a device's HBM.

The figures are ``spec.jax_memory``'s; this module only lays them out (text, or the JSON document
of ``--format json``).
"""

from __future__ import annotations

from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.words import plural, printable
from tpuemb_cli.spec.jax_memory import COO_ARRAYS, INT_MAX, SLOTS, JaxMemory, JaxStackMemory
from tpuemb_cli.spec.jax_memory_record import device_problem, memory_report
from tpuemb_cli.views.memory_json import render_json
from tpuemb_cli.views.memory_parts import cut, hbm_verdict
from tpuemb_cli.views.text import text_of

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
NOT_COUNTED = (
    "not counted (so this is a lower bound): activations, the dense model, XLA's working set"
)


def _label(number: int, stack: JaxStackMemory) -> str:
    return f"{number} {cut(stack.name)}"


def _grid(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def _verdict(memory: JaxMemory, chip: Chip) -> list[str]:
    hbm = chip.hbm_per_core
    if hbm is None:
        return [f"TPU {chip.name}: its HBM is not known (docs/memory.md); nothing to compare with"]
    used = memory.per_device_bytes
    lines = [
        f"TPU {chip.name}: {size(hbm)} of HBM a device; the stacks take {used / hbm:.1%} of it"
    ]
    said, budget = hbm_verdict(used, hbm, "the stacks alone exceed a device's HBM", "help")
    lines.append(said)
    if budget is None:
        return lines
    sgd = memory.parameters_per_device
    lines.append(
        "  more devices: the variables are split over every SparseCore (but the COO buffers "
        "grow with the SparseCores)"
    )
    lines.append(
        "  smaller input buffers: a suggested_coo_buffer_size_per_device from the library's "
        "preprocessing stats (`embedding.update_preprocessing_parameters`), or lower "
        "max_ids_per_partition"
    )
    if sgd != used:
        lines.append(
            f"  cheaper optimizer state: SGD on every table (no slot variables): {size(sgd)} a "
            f"device ({'enough' if sgd <= budget else 'not enough'})"
        )
    return lines


def explain_jax_memory(name: str, memory: JaxMemory, chip: Chip | None) -> str:
    """The human report of an EmbeddingSpecProto's memory."""
    header = f"{printable(name)} (jax-tpu-embedding on SparseCores)"
    per_device = memory.per_device if not device_problem(memory, chip) else None
    head = ["stack", "tables", "rows x dim", "arrays", "variables a SC", "COO a SC"]
    if per_device:
        head += ["variables a device", "buffers a device"]
    rows = [head]
    for number, stack in enumerate(memory.stacks, 1):
        row = [
            _label(number, stack),
            str(len(stack.tables)),
            f"{stack.rows_per_sparse_core:,} x {stack.width:,}",
            f"{len(stack.arrays)} ({', '.join(stack.arrays)})",
            size(stack.variables_per_sparse_core),
            f"{stack.coo_per_sparse_core:,} ids",
        ]
        if per_device:
            refused = stack.refused(per_device)
            row += [
                size(stack.variables(per_device)),
                "refused" if refused else size(stack.buffers(per_device)),
            ]
        rows.append(row)
    lines = [
        f"{header}: each stack on each of {plural(memory.num_sparsecores, 'SparseCore')} (rows x "
        "dim: a SparseCore's rows of the stack)",
        ENGINE_LINE,
        "",
        *_grid(rows),
        "",
    ]
    unknown = [stack.name for stack in memory.stacks if SLOTS.get(stack.optimizer) is None]
    if unknown:
        shown = ", ".join(printable(n) for n in unknown[:3]) + (" ..." if len(unknown) > 3 else "")
        lines.append(NO_OPTIMIZER.format(stacks=shown))
    lines.append(BUFFERS)
    problem = device_problem(memory, chip)
    if problem:
        lines += [NOT_COUNTED, "", problem]
        return text_of(lines)
    assert chip is not None and per_device is not None
    for stack in memory.too_large():
        lines.append(
            f"COO buffer of {printable(stack.name)}: {stack.coo_size(per_device):,} elements, not "
            f"below INT_MAX ({INT_MAX:,}): the library refuses it (CHECK in "
            "ComputeCooBufferSizePerDevice; a limit past 32 bits: TypeError) and allocates "
            "nothing; not counted below"
        )
    lines += [
        f"total: {size(memory.per_device_bytes)} a device ({memory.devices:,} devices x "
        f"{per_device} SparseCores): variables {size(memory.variables_per_device)}, input "
        f"buffers {size(memory.buffers_per_device)}; {memory.per_device_bytes:,} bytes a device",
        NOT_COUNTED,
        "",
        *_verdict(memory, chip),
    ]
    return text_of(lines)


def jax_memory_json(name: str, memory: JaxMemory, chip: Chip | None) -> str:
    """The same report as a JSON document (spec/jax_memory_record's report, views/memory_json)."""
    return render_json(memory_report(name, memory, chip))
