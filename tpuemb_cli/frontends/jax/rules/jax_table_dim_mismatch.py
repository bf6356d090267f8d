"""A JAX table whose padded dimension is not its stack's.

## What it does
Reports a table whose `padded_embedding_dim` differs from its stack's `stack_embedding_dim`,
or whose `embedding_dim` is wider than the stack.

## Why is this bad?
A stacked table is one variable of `stack_embedding_dim` columns: every table in it is padded to
that width (the largest of its tables' dimensions rounded up to 8). A table recorded with another
padded width, or wider than the stack, does not fit the variable it is said to be part of.

## What jax-tpu-embedding does
`stack_tables` pads every table of a stack to `max(table_to_padded_dim.values())` and records
that as both the stack's `stack_embedding_dim` and each table's `padded_embedding_dim`;
`_pad_table` pads a table's columns up to the stack's dimension (`stack_embedding_dim -
embedding_dim`), which a wider table makes negative (`jnp.pad` refuses it).

## Example
```pbtxt
stacked_table_specs {
  stack_embedding_dim: 16
  table_specs { table_name: "a" embedding_dim: 32 padded_embedding_dim: 32 }
}
```

## Use instead
```pbtxt
  stack_embedding_dim: 32
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `stack_tables` (`padded_embedding_dim = max(...)`), `_stack_feature_specs` and
  `_pad_table`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import stack_label, table_label, table_path, tables
from tpuemb_cli.model.findings import Violation


def check_jax(spec: Any) -> Iterator[Violation]:
    for s, stack, t, table in tables(spec):
        width = stack.stack_embedding_dim
        label, where = table_label(t, table), stack_label(s, stack)
        if table.embedding_dim > width:
            yield Violation(
                (*table_path(s, t), "embedding_dim"),
                f"{label} has embedding_dim {table.embedding_dim}, wider than {where}'s "
                f"stack_embedding_dim {width}: its columns do not fit the stacked variable",
                "set the stack's stack_embedding_dim to the largest of its tables' dimensions "
                "rounded up to a multiple of 8",
            )
        elif table.padded_embedding_dim != width:
            yield Violation(
                (*table_path(s, t), "padded_embedding_dim"),
                f"{label} has padded_embedding_dim {table.padded_embedding_dim}, but {where} is "
                f"{width} wide: the library pads every table of a stack to the stack's dimension",
                f"set padded_embedding_dim to {width}",
            )
