"""A stack's input limit is below what its input was measured to need.

## What it does
With statistics given (`check --stats PATH`, or `stats = "PATH"` in the settings: the FDO files
jax-tpu-embedding's `NPZFileFDOClient` / `CSVFileFDOClient` or torchrec's CSV client write, or
`tpuemb stats -o`), compares each stack's `max_ids_per_partition` and
`max_unique_ids_per_partition` with the largest value measured for that stack (the statistics
key stacks by name), and reports a limit below it. In a stack of several tables the tables' own
limits are ignored by the library; the stack's are judged, and the message names the tables'.
A table alone in its stack with a `suggested_coo_buffer_size_per_device` (a spec's `jax`
section) has its COO buffer sized by it: a buffer below the largest measured required buffer of
a SparseCore times the SparseCores a device is reported too.

## Why is this bad?
Some batch already had more ids (or distinct ids) in one partition than the limit lets through.

## What the library does
Its preprocessing (`SortAndGroupCooTensorsPerLocalDevice`) counts the ids of each partition; past
a limit it **drops** the ids that do not fit when called with `allow_id_dropping=True` (logging a
warning: training then never sees them), and **aborts the process** without it (`LOG(FATAL)`:
"Observed max ids per partition: ... Use `allow_id_dropping` or increase the
`max_ids_per_partition`"). With `enable_minibatching` it first splits the batch into minibatches
so that each fits. Past a suggested COO buffer it drops the ids that do not fit, whether
`allow_id_dropping` is set or not.

## Example
```pbtxt
# measured: 97 ids in the fullest partition of stack "a"
stacked_table_specs { stack_name: "a" max_ids_per_partition: 64 max_unique_ids_per_partition: 64 }
```

## Use instead
```pbtxt
stacked_table_specs { stack_name: "a" max_ids_per_partition: 146 max_unique_ids_per_partition: 64 }
```

## Fix safety
Safe: raises the limit to the measured maximum times the headroom (`stats-headroom`, default
1.5), as `update_preprocessing_parameters` would with that margin; a larger limit drops fewer ids
and changes nothing else the model computes. A unique-ids limit is raised no further than the
ids limit. A stack of several tables in a spec has its limits in a map entry
(`jax.stack_max_ids_per_partition`), which no fix writes.

## Options
`stats` (or `--stats`): the statistics; `stats-headroom` (or `--stats-headroom`): the margin.

## References
- [`jax_tpu_embedding/sparsecore/lib/core/sort_and_group_coo_tensors_impl.h`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/sort_and_group_coo_tensors_impl.h),
  `ValidateMaxIdsOrDie` (drop or abort) and the minibatching split
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `SparseDenseMatmulInputStats`, `update_preprocessing_parameters`
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import Measured, MeasuredStack
from tpuemb_cli.rules.lib.measured import (
    ignored_tables,
    label,
    limits,
    suggested_buffer,
    target,
    too_large,
)


def check_stats(measured: Measured) -> Iterator[Violation]:
    from tpuemb_cli.model.edits import Fix, SetValue

    for stack in measured.stacks:
        ids_target = None
        for field, limit, found in limits(stack):
            if found is None or found <= limit:
                continue
            raised = target(found, measured.headroom)
            if field == "max_ids_per_partition":
                ids_target = raised
            else:  # no further than the ids limit it will have
                raised = max(found, min(raised, max(stack.max_ids_per_partition, ids_target or 0)))
            path = (
                stack.max_ids_path
                if field == "max_ids_per_partition"
                else (stack.max_unique_ids_path)
            )
            what = "ids" if field == "max_ids_per_partition" else "distinct ids"
            autofix = None
            # A limit whose COO buffer reaches INT_MAX elements on any device (one SparseCore a
            # device at least) is one the library refuses: no fix writes it.
            refused = field == "max_ids_per_partition" and too_large(raised, stack)
            if path is not None and not refused:
                autofix = Fix(
                    (SetValue(path, raised),),
                    safe=True,
                    title=f"Raise {field} to {raised}",
                )
            yield Violation(
                path or stack.path,
                f"{label(stack)} lets {limit} {what} into a partition ({field}), and the "
                f"statistics measured up to {found}: "
                + (
                    measured.overflow
                    or f"{measured.library}'s preprocessing drops the rest when called with "
                    "allow_id_dropping=True, and aborts the process without it (with "
                    "enable_minibatching it splits the batch into minibatches first)"
                )
                + ignored_tables(stack),
                "the library refuses a COO buffer that large (INT_MAX elements): check that the "
                "statistics are of this model and its batch, or split the stack"
                if refused
                else f"raise {field} of {label(stack)} to at least {found} ({raised} with the "
                f"headroom of {measured.headroom:g})",
                autofix,
            )
        yield from _buffer(stack, measured)


def _buffer(stack: MeasuredStack, measured: Measured) -> Iterator[Violation]:
    """A suggested COO buffer below what a device was measured to need."""
    from tpuemb_cli.model.edits import Fix, SetValue

    per_device, found = measured.per_device, stack.measured_buffer_per_sc
    if stack.buffer_per_device is None or found is None or not per_device:
        return
    allocated, needed = suggested_buffer(stack, per_device), found * per_device
    if needed <= allocated:
        return
    raised = target(needed, measured.headroom)
    autofix = None
    if stack.buffer_path is not None:
        autofix = Fix(
            (SetValue(stack.buffer_path, raised),),
            safe=True,
            title=f"Raise suggested_coo_buffer_size_per_device to {raised}",
        )
    yield Violation(
        stack.buffer_path or stack.path,
        f"{label(stack)}'s suggested_coo_buffer_size_per_device of {stack.buffer_per_device} "
        f"gives a device a COO buffer of {allocated} ids, and the statistics measured up to "
        f"{found} a SparseCore ({needed} a device of {per_device}): {measured.library}'s "
        "preprocessing drops the ids past the buffer, with allow_id_dropping or without",
        f"raise suggested_coo_buffer_size_per_device to at least {needed} ({raised} with the "
        f"headroom of {measured.headroom:g}), or remove it (the limits then size the buffer)",
        autofix,
    )
