"""A stack's input limit is far above what its input was measured to need.

## What it does
With statistics given (`check --stats PATH`), reports a stack whose `max_ids_per_partition` is
above the largest value measured for it times the headroom (`stats-headroom`, default 1.5), and
says how many bytes of input buffers the limit costs beyond what the data needs: the library
sizes each stack's COO buffer from the limit (`RoundUpTo(max_ids_per_partition, 8) x
SparseCores a device x SparseCores` elements of 12 bytes a device) unless given a
`suggested_coo_buffer_size_per_device`. A device's count needs the SparseCores a device: a
spec's `jax.num_sc_per_device`, or the chip (`--tpu`) for an EmbeddingSpecProto; without it the
bytes are a SparseCore's. The verdict is the same either way. A table alone in its stack whose
`suggested_coo_buffer_size_per_device` sizes its buffer is judged by that instead: a buffer
above the measured need (the largest required buffer of a SparseCore times the SparseCores a
device) times the headroom.

## Why is this bad?
Those buffers sit in every device's HBM, beside the tables, for ids that never come; keras-rs
users meet it as "No Coo Buffer Size provided ... the default value may be too large and can
cause OOM" (keras-team/keras-rs#145).

## What the library does
It allocates the buffer the limit implies, and warns when less than 80% of it is used
(`CheckBufferUsage`); its `update_preprocessing_parameters` lowers a limit to the measured
maximum.

## Example
```pbtxt
# measured: 97 ids in the fullest partition of stack "a"
stacked_table_specs { stack_name: "a" max_ids_per_partition: 4096 num_sparsecores: 16 }
```

## Use instead
```pbtxt
stacked_table_specs { stack_name: "a" max_ids_per_partition: 146 num_sparsecores: 16 }
```

## Fix safety
Unsafe: lowers the limit (and a unique-ids limit above it) to the measured maximum times the
headroom; a batch fuller than any measured is then dropped or aborts (TE611).

## Options
`stats` (or `--stats`), `stats-headroom` (or `--stats-headroom`).

## References
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc),
  `ComputeCooBufferSizePerDevice`, `ComputeTheoreticalMaxCooBufferSize`
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing.cc),
  `CheckBufferUsage`
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.memory import size
from tpuemb_cli.rules.base import Measured, MeasuredStack
from tpuemb_cli.rules.lib.measured import (
    ELEMENT_BYTES,
    buffer_bytes,
    label,
    suggested_buffer,
    target,
    where,
)


def check_stats(measured: Measured) -> Iterator[Violation]:
    from tpuemb_cli.model.edits import Fix, SetValue

    for stack in measured.stacks:
        if stack.buffer_per_device is not None:
            # A suggested size, not the limit, sizes this stack's buffer.
            yield from _buffer(stack, measured)
            continue
        found, limit = stack.measured_ids, stack.max_ids_per_partition
        # Nothing measured (no id of the stack in the sample) says nothing of what it needs.
        if not found or limit <= target(found, measured.headroom):
            continue
        lowered = target(found, measured.headroom)
        extra = buffer_bytes(limit, stack, measured) - buffer_bytes(lowered, stack, measured)
        edits = []
        if stack.max_ids_path is not None:
            edits.append(SetValue(stack.max_ids_path, lowered))
        if stack.max_unique_ids_path is not None and stack.max_unique_ids_per_partition > lowered:
            unique = stack.measured_unique_ids or 0
            edits.append(
                SetValue(stack.max_unique_ids_path, min(lowered, target(unique, measured.headroom)))
            )
        autofix = (
            Fix(tuple(edits), safe=False, title=f"Lower max_ids_per_partition to {lowered}")
            if edits
            else None
        )
        yield Violation(
            stack.max_ids_path or stack.path,
            f"{label(stack)} lets {limit} ids into a partition (max_ids_per_partition), "
            f"{limit / found:.1f}x the {found} measured: the input buffers that limit "
            f"sizes take {size(extra)} more on {where(measured)} than at {lowered} "
            f"(the measured maximum with the headroom of {measured.headroom:g})",
            f"lower max_ids_per_partition of {label(stack)} to {lowered}, or give the stack a "
            "suggested_coo_buffer_size_per_device",
            autofix,
        )


def _buffer(stack: MeasuredStack, measured: Measured) -> Iterator[Violation]:
    """A suggested COO buffer far above what a device was measured to need."""
    from tpuemb_cli.model.edits import Fix, SetValue

    per_device, found = measured.per_device, stack.measured_buffer_per_sc
    if not found or not per_device:
        return
    allocated = suggested_buffer(stack, per_device)
    lowered = target(found * per_device, measured.headroom)
    if allocated <= suggested_buffer(stack._replace(buffer_per_device=lowered), per_device):
        return
    extra = (allocated - lowered) * ELEMENT_BYTES
    autofix = None
    if stack.buffer_path is not None:
        autofix = Fix(
            (SetValue(stack.buffer_path, lowered),),
            safe=False,
            title=f"Lower suggested_coo_buffer_size_per_device to {lowered}",
        )
    yield Violation(
        stack.buffer_path or stack.path,
        f"{label(stack)}'s suggested_coo_buffer_size_per_device gives a device a COO buffer of "
        f"{allocated} ids, {allocated / (found * per_device):.1f}x the {found * per_device} "
        f"measured: it takes {size(extra)} more on a device than at {lowered} (the measured "
        f"need with the headroom of {measured.headroom:g})",
        f"lower suggested_coo_buffer_size_per_device of {label(stack)} to {lowered}",
        autofix,
    )
