"""A JAX table placed outside its stack's shards, or over another table.

## What it does
Reports a table whose rows in each SparseCore shard -- from `row_offset_in_shard`, its
`padded_vocab_size / num_sparsecores` rows -- run before the shard's start or past the stack's
rows per shard (`stack_vocab_size / num_sparsecores`), or overlap another table's; and a
`shard_rotation` outside 0 to `num_sparsecores - 1`.

## Why is this bad?
Each SparseCore holds one shard of the stacked variable; in it, the tables' rows lie one after
another, each table from its `row_offset_in_shard`, and the table's row `r` goes to shard
`(r + shard_rotation) % num_sparsecores`. Rows outside the shard are not in the variable; rows of
two tables at one place are one table's values read as the other's.

## What jax-tpu-embedding does
`_compute_table_to_setting_in_stack` gives the first table offset 0 and each next one the
previous offset plus the previous table's rows per shard, and rotates each next table by
`num_sc_per_device` modulo the SparseCores in all. `_unshard_and_unstack_single_table` reads a
table back from those offsets and rotations (`jnp.roll` by `-shard_rotation`): other values read
other rows, with no error.

## Example
```pbtxt
stacked_table_specs {
  stack_vocab_size: 2048 num_sparsecores: 8
  table_specs { table_name: "a" padded_vocab_size: 1024 }
  table_specs { table_name: "b" padded_vocab_size: 1024 row_offset_in_shard: 64 shard_rotation: 8 }
}
```

## Use instead
```pbtxt
  table_specs { table_name: "b" padded_vocab_size: 1024 row_offset_in_shard: 128 shard_rotation: 4 }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_compute_table_to_setting_in_stack` and `_unshard_and_unstack_single_table`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import stack_label, table_label, table_path
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.lib.overlaps import first_overlaps


def check_jax(spec: Any) -> Iterator[Violation]:
    for s, stack in enumerate(spec.stacked_table_specs):
        cores = stack.num_sparsecores
        if cores < 1:
            continue  # TE681
        yield from _stack(s, stack, cores)


def _stack(s: int, stack: Any, cores: int) -> Iterator[Violation]:
    shard = stack.stack_vocab_size // cores
    where = stack_label(s, stack)
    rows = [
        (
            table.row_offset_in_shard,
            table.row_offset_in_shard + max(table.padded_vocab_size, 0) // cores,
        )
        for table in stack.table_specs
    ]
    # The tables within the shard, each against the earlier ones (one pass: a stack may hold
    # tens of thousands of tables).
    inside = [t for t, (first, end) in enumerate(rows) if first >= 0 and end <= shard]
    over = dict(zip(inside, first_overlaps([rows[t] for t in inside]), strict=True))
    for t, table in enumerate(stack.table_specs):
        label = table_label(t, table)
        if not 0 <= table.shard_rotation < cores:
            yield Violation(
                (*table_path(s, t), "shard_rotation"),
                f"{label} has shard_rotation {table.shard_rotation}, outside {where}'s "
                f"{cores} SparseCore shards (0 to {cores - 1})",
                f"set shard_rotation to a shard of the stack, modulo {cores}",
            )
        first, end = rows[t]
        if t not in over:
            yield Violation(
                (*table_path(s, t), "row_offset_in_shard"),
                f"{label} takes rows {first} to {end - 1} of each shard, but {where} has "
                f"{shard} rows a shard (stack_vocab_size {stack.stack_vocab_size} / {cores})",
                "place the table within the stack: the rows per shard of the tables before it",
            )
            continue
        earlier = over[t]
        if earlier is not None and end > first:
            other = inside[earlier]
            o_first, o_end = rows[other]
            yield Violation(
                (*table_path(s, t), "row_offset_in_shard"),
                f"{label} takes rows {first} to {end - 1} of each shard, over rows "
                f"{o_first} to {o_end - 1} of {table_label(other, stack.table_specs[other])}",
                "place each table after the rows of the tables before it",
            )
