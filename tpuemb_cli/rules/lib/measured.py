"""What the statistics rules share: the limit a measured maximum calls for, how a message names
a stack and cites the library, and the bytes a limit's input buffers take."""

from __future__ import annotations

import math
from typing import Any

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


def _why_not(found: Any, stack: MeasuredStack, per_partition: bool) -> str:
    """Why a stack's statistics cannot judge its limits, or "" when they can."""
    if found.max_ids_max is None or found.max_unique_ids_max is None:
        missing = "max_ids" if found.max_ids_max is None else "max_unique_ids"
        return f"they hold no {missing} for it"
    if found.max_ids_max == 0:
        return "they counted no id of it"
    if per_partition and stack.num_sparsecores > 0:
        # The library records one value a partition (all the stack's SparseCores) for each
        # local device: counts of another layout have another width.
        widths = {len(row) for row in (*found.max_ids, *found.max_unique_ids)}
        if any(width % stack.num_sparsecores for width in widths):
            shown = ", ".join(str(width) for width in sorted(widths))
            return (
                f"they count {shown} values a row, no multiple of its {stack.num_sparsecores} "
                "partitions (SparseCores): measured for another layout"
            )
    return ""


def pair(
    settings: Any,
    stacks: list[MeasuredStack],
    per_device: int | None,
    library: str,
    overflow: str = "",
) -> Measured:
    """A front-end's stacks beside ``settings.stats`` (the statistics key stacks by name):
    each measured stack's maxima, the stacks measured for nothing, those the statistics cannot
    judge and why, and the statistics' stacks the document has not; ``library`` is whose
    preprocessing the limits are for, ``overflow`` what it does past one ("": jax-tpu-embedding's
    words, rules/stats)."""
    reading = settings.stats
    named = {stack.name for stack in stacks}
    # jax-tpu-embedding's files hold a value a partition; torchrec's CSV one value a table.
    per_partition = str(reading.source).startswith("jax")
    paired, unjudged = [], []
    for stack in stacks:
        found = reading.stacks.get(stack.name)
        if found is None:
            paired.append(stack)
            continue
        why = _why_not(found, stack, per_partition)
        if why:
            unjudged.append((stack.name, why))
            continue
        paired.append(
            stack._replace(
                measured_ids=found.max_ids_max,
                measured_unique_ids=found.max_unique_ids_max,
                measured_buffer_per_sc=found.required_buffer_size_max,
            )
        )
    return Measured(
        settings.stats_path or str(reading.files[0] if reading.files else ""),
        library,
        settings.stats_headroom,
        tuple(paired),
        tuple(stack.name for stack in stacks if stack.name not in reading.stacks),
        tuple(sorted(name for name in reading.stacks if name not in named)),
        per_device,
        tuple(unjudged),
        overflow=overflow,
    )
