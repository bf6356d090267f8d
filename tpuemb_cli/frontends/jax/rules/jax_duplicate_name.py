"""Two JAX stacks, or two JAX tables, of one name.

## What it does
Reports, in jax-tpu-embedding's `EmbeddingSpecProto`, a stack whose `stack_name` an earlier stack
already has, and a table whose `table_name` an earlier table already has, in the same stack or in
another. An empty name counts as a name: two stacks (or tables) named `""` collide as well.

## Why is this bad?
The library keeps a model's embedding variables by name: the stacked variables (and a checkpoint
of them) by stack name, the tables it unstacks from them by table name. Of two stacks of one name
there is one variable, which holds one stack's rows and is read as both; of two tables of one
name, one is returned and the other is lost, without a word.

## What jax-tpu-embedding does
`unstack_and_unshard_stacked_tables` takes the stacked variables as a dict `{stack_name: array}`
and looks each stack of the spec up in it by `stack_name`: two stacks of one name are unstacked
from one array. `_unstack_and_unshard_stacked_table` returns `{table_name: array}` and
`unstack_and_unshard_stacked_tables` merges the stacks' dicts with `dict.update`: a table's name
a second time replaces the first table's values.

## Example
```pbtxt
stacked_table_specs { stack_name: "s" table_specs { table_name: "a" } }
stacked_table_specs { stack_name: "s" table_specs { table_name: "b" } }
```

## Use instead
```pbtxt
stacked_table_specs { stack_name: "s" table_specs { table_name: "a" } }
stacked_table_specs { stack_name: "t" table_specs { table_name: "b" } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `unstack_and_unshard_stacked_tables` and `_unstack_and_unshard_stacked_table`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import (
    stack_label,
    stack_path,
    table_label,
    table_path,
)
from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.findings import Violation


def check_jax(spec: Any) -> Iterator[Violation]:
    stacks: dict[str, int] = {}
    for s, stack in enumerate(spec.stacked_table_specs):
        earlier = stacks.setdefault(stack.stack_name, s)
        # An empty name is a name too: two stacks named "" are one variable, keyed "".
        if earlier != s:
            yield Violation(
                (*stack_path(s), "stack_name"),
                f'stack {s} is named "{shown(stack.stack_name)}", as stack {earlier}: the library '
                "keeps the stacked variables by stack name, so both stacks are read from one "
                "variable",
                "give every stack a name of its own",
            )
    tables: dict[str, tuple[int, int]] = {}
    for s, stack in enumerate(spec.stacked_table_specs):
        for t, table in enumerate(stack.table_specs):
            first = tables.setdefault(table.table_name, (s, t))
            if first == (s, t):
                continue
            where = spec.stacked_table_specs[first[0]]
            yield Violation(
                (*table_path(s, t), "table_name"),
                f"{table_label(t, table)} of {stack_label(s, stack)} has the name of table "
                f"{first[1]} of {stack_label(first[0], where)}: the library returns the unstacked "
                "tables by name, and keeps only one of them",
                "give every table a name of its own",
            )
