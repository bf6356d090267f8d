"""A TorchRec table limit its stack overrides with another table's.

## What it does
Reports a table that sets `max_ids_per_partition`, `max_unique_ids_per_partition` or
`suggested_coo_buffer_size_per_device` lower than another table of its stack: the stack uses the
largest of its tables' values (256 for a table that leaves either of the first two out).

## Why is this bad?
The limits size the SparseCore's buffers per stack, not per table: the value written on the table
is ignored without a word, and the stack's buffers are as large as its largest table's.

## What TorchRec does
`StackedSparseCoreEmbeddingConfig.max_ids_per_partition` and `max_unique_ids_per_partition` are
the largest of the stack's tables' (each 256 by default), `suggested_coo_buffer_size_per_device`
the largest of those set; the lookups (`_run_table_lookup`, `sc_backward`) and the input
preprocessor read the stack's. On CPU, tables of `max_ids_per_partition` 64 and 512 stacked with
`stack_tables` gave the stack 512.

## Example
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fa"
         max_ids_per_partition: 64 stack_table_name: "s" }
tables { name: "b" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fb"
         max_ids_per_partition: 512 stack_table_name: "s" }
```

## Use instead
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fa"
         max_ids_per_partition: 512 stack_table_name: "s" }
tables { name: "b" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fb"
         max_ids_per_partition: 512 stack_table_name: "s" }
```

## Fix safety
No automatic fix: whether to raise the table's limit or stack it apart is the user's choice.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/embedding_configs.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/embedding_configs.py),
  `StackedSparseCoreEmbeddingConfig.max_ids_per_partition`, `max_unique_ids_per_partition`,
  `suggested_coo_buffer_size_per_device`
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_run_table_lookup`, `sc_backward`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.frontends.torchrec.spec.stacking import DEFAULT_LIMIT
from tpuemb_cli.model.findings import Violation

# Each limit and its default (None: the stack takes the largest of those set).
_LIMITS = (
    ("max_ids_per_partition", DEFAULT_LIMIT),
    ("max_unique_ids_per_partition", DEFAULT_LIMIT),
    ("suggested_coo_buffer_size_per_device", None),
)


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for stack in facts.stacking.stacks:
        if len(stack.tables) < 2:
            continue
        tables = [(place.table, spec.tables[place.table]) for place in stack.tables]
        for field, default in _LIMITS:
            values = {
                index: getattr(table, field) if table.HasField(field) else default
                for index, table in tables
            }
            known = {index: v for index, v in values.items() if v is not None}
            if not known:
                continue
            used = max(known.values())
            owner = next(index for index, v in known.items() if v == used)
            source = (
                f"{table_label(spec, owner)}'s"
                if spec.tables[owner].HasField(field)
                else "the default"
            )
            for index, table in tables:
                if not table.HasField(field) or getattr(table, field) >= used:
                    continue
                yield Violation(
                    ("tables", index, field),
                    f"{table_label(spec, index)} has {field} {getattr(table, field)}, but its "
                    f"stack `{stack.name}` uses the largest of its tables', {used} ({source}): "
                    f"torchrec ignores {getattr(table, field)}",
                    f"set {field} to {used}, or stack `{table.name}` apart",
                )
