"""A JAX stack whose vocabulary is not the sum of its tables' padded vocabularies.

## What it does
Reports a stack whose `stack_vocab_size` differs from the sum of its tables'
`padded_vocab_size`.

## Why is this bad?
A stacked table is its tables' padded rows one after another: the library makes its vocabulary
exactly their sum. A stack of another size either has rows that belong to no table, or tables whose
rows lie past its end; the stacked variable is shaped by `stack_vocab_size`, the tables are
found in it by their offsets.

## What jax-tpu-embedding does
`_stack_feature_specs` sets `stack_vocab_size=sum(table_to_padded_vocab_size[tname] for tname
in table_names)`, and `prepare_feature_specs_for_training` a table's own padded vocabulary for a
table alone; `create_proto_from_feature_specs` copies both. A proto that disagrees was not written
by the library from one layout, and restoring a checkpoint or unstacking tables with it reads rows
of the wrong table or past the variable's end.

## Example
```pbtxt
stacked_table_specs {
  stack_name: "a_b" stack_vocab_size: 1024 num_sparsecores: 8
  table_specs { table_name: "a" vocab_size: 1000 padded_vocab_size: 1024 }
  table_specs { table_name: "b" vocab_size: 1000 padded_vocab_size: 1024 row_offset_in_shard: 128 }
}
```

## Use instead
```pbtxt
  stack_name: "a_b" stack_vocab_size: 2048 num_sparsecores: 8
```

## Fix safety
No automatic fix: which number is wrong is not known.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_stack_feature_specs` (`stack_vocab_size`)
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `prepare_feature_specs_for_training` and `create_proto_from_feature_specs`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import stack_label, stack_path
from tpuemb_cli.model.findings import Violation


def check_jax(spec: Any) -> Iterator[Violation]:
    for index, stack in enumerate(spec.stacked_table_specs):
        if not stack.table_specs:
            continue
        total = sum(table.padded_vocab_size for table in stack.table_specs)
        if stack.stack_vocab_size == total:
            continue
        count = len(stack.table_specs)
        yield Violation(
            (*stack_path(index), "stack_vocab_size"),
            f"{stack_label(index, stack)} has stack_vocab_size {stack.stack_vocab_size}, but its "
            f"{count} table{'s' if count != 1 else ''} have {total} padded rows: the library "
            "makes a stack exactly its tables' padded rows",
            f"set stack_vocab_size to {total}, or correct the tables' padded_vocab_size",
        )
