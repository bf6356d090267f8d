"""A JAX table padded otherwise than the library pads it.

## What it does
Reports a table whose `padded_vocab_size` is not its `vocab_size` rounded up to a multiple of 8
times the stack's `num_sparsecores`, or whose `padded_embedding_dim` is not a multiple of 8
at least its `embedding_dim` rounded up to 8.

## Why is this bad?
The rows of a stacked table are spread over every SparseCore, 8 rows at a time (a TPU vector
register), and each row is a multiple of 8 values wide. The library pads every table so; its
checkpoint tools do not read the padded size from the proto but compute it again from
`vocab_size`, so a table recorded with other padding is unstacked at the wrong rows.

## What jax-tpu-embedding does
`round_up_dim_and_vocab_size` rounds the dimension up to a multiple of 8 and the vocabulary up to
a multiple of `8 * num_sc` (the SparseCores in all); a stack's dimension is the largest of its
tables'. `_unshard_and_unstack_table` recomputes the rows per shard as
`_next_largest_multiple(vocabulary_size, 8 * num_shards) // num_shards`.

## Example
```pbtxt
stacked_table_specs {
  num_sparsecores: 8
  table_specs {
    table_name: "a" vocab_size: 1000 padded_vocab_size: 1000
    embedding_dim: 12 padded_embedding_dim: 12
  }
}
```

## Use instead
```pbtxt
  table_specs {
    table_name: "a" vocab_size: 1000 padded_vocab_size: 1024
    embedding_dim: 12 padded_embedding_dim: 16
  }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `round_up_dim_and_vocab_size`, `_next_largest_multiple`, `stack_tables` (the stack's
  dimension) and `_unshard_and_unstack_table`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import (
    ALIGNMENT,
    padded_vocab,
    round_up,
    table_label,
    table_path,
    tables,
)
from tpuemb_cli.model.findings import Violation


def check_jax(spec: Any) -> Iterator[Violation]:
    for s, stack, t, table in tables(spec):
        label = table_label(t, table)
        cores = stack.num_sparsecores
        if cores >= 1 and table.vocab_size >= 0:  # TE681 reports no SparseCores
            wanted = padded_vocab(table.vocab_size, cores)
            if table.padded_vocab_size != wanted:
                yield Violation(
                    (*table_path(s, t), "padded_vocab_size"),
                    f"{label} has padded_vocab_size {table.padded_vocab_size}; the library pads "
                    f"{table.vocab_size} rows to a multiple of 8 x {cores} SparseCores = "
                    f"{wanted}, and its checkpoint tools recompute that size",
                    f"set padded_vocab_size to {wanted}",
                )
        least = round_up(max(table.embedding_dim, 0), ALIGNMENT)
        dim = table.padded_embedding_dim
        if dim % ALIGNMENT or dim < least:
            yield Violation(
                (*table_path(s, t), "padded_embedding_dim"),
                f"{label} has padded_embedding_dim {dim}; the library pads an embedding_dim of "
                f"{table.embedding_dim} to a multiple of 8, at least {least}",
                f"set padded_embedding_dim to {max(least, round_up(dim, ALIGNMENT))}",
            )
