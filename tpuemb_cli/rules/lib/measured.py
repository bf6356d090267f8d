"""What the statistics rules share: the limit a measured maximum calls for, how a message names
a stack and cites the library, and the bytes a limit's input buffers take."""

from __future__ import annotations

import math

from tpuemb_cli.load.limits import shown
from tpuemb_cli.rules.base import Measured, MeasuredStack

ALIGNMENT = 8  # the library rounds a limit up to the TPU's vector registers
# A COO buffer element: an embedding id (int32), a sample id (int32) and a gain (float32)
# (`CheckBufferUsage`'s kElementSize, input_preprocessing.cc).
ELEMENT_BYTES = 12


def label(stack: MeasuredStack) -> str:
    return f"stack `{shown(stack.name)}`"


def target(measured: int, headroom: float) -> int:
    """The limit that covers ``measured`` with ``headroom``: what ``--fix`` writes."""
    return max(math.ceil(measured * headroom - 1e-9), measured, 1)


def limits(stack: MeasuredStack) -> list[tuple[str, int, int | None]]:
    """(field, the stack's limit, the measured maximum) for its two limits."""
    return [
        ("max_ids_per_partition", stack.max_ids_per_partition, stack.measured_ids),
        (
            "max_unique_ids_per_partition",
            stack.max_unique_ids_per_partition,
            stack.measured_unique_ids,
        ),
    ]


def buffer_bytes(max_ids: int, stack: MeasuredStack, measured: Measured) -> int:
    """Bytes of the COO buffer a limit of ``max_ids`` implies (the library's theoretical
    maximum, ``RoundUpTo(max_ids, 8) x num_sc_per_device x num_scs`` elements a device), on a
    device where SparseCores a device are known, else on one SparseCore."""
    rounded = -(-max_ids // ALIGNMENT) * ALIGNMENT
    return rounded * stack.num_sparsecores * (measured.per_device or 1) * ELEMENT_BYTES


def suggested_buffer(stack: MeasuredStack, per_device: int) -> int:
    """The COO buffer a device gets from a suggested size: rounded up to 8 elements a
    SparseCore (``MayBeUpdateBufferSize``)."""
    assert stack.buffer_per_device is not None
    step = ALIGNMENT * per_device
    return -(-stack.buffer_per_device // step) * step


def too_large(max_ids: int, stack: MeasuredStack) -> bool:
    """Whether a limit of ``max_ids`` makes a COO buffer of INT_MAX elements or more even on a
    device of one SparseCore (``ComputeCooBufferSizePerDevice`` CHECKs below it)."""
    rounded = -(-max_ids // ALIGNMENT) * ALIGNMENT
    return rounded * max(stack.num_sparsecores, 1) >= 2**31 - 1


def where(measured: Measured) -> str:
    return "a device" if measured.per_device else "a SparseCore"


def ignored_tables(stack: MeasuredStack) -> str:
    """`` (its tables' own limits -- `a` 32 -- are ignored in a stack of several)``, or ""."""
    if not stack.ignored_table_limits:
        return ""
    listed = ", ".join(
        f"`{shown(name)}` {ids}/{unique}" for name, ids, unique in stack.ignored_table_limits
    )
    return (
        f" (its tables' own limits, max_ids/max_unique_ids {listed}, count for nothing in a "
        "stack of several tables: the stack's do)"
    )
