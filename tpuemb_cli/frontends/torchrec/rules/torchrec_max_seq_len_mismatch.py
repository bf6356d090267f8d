"""Sequence tables of different `max_seq_len` stacked together.

## What it does
Reports a sequence table (an `EmbeddingConfig`) whose `max_seq_len` differs from that of the
first table of its stack -- however the stack is made: an explicit `stack_tables` call, or
tables given one `stack_table_name` (`auto_stack_tables` groups sequence tables by
`max_seq_len`, so it never mixes them).

## Why is this bad?
A stack has one `max_seq_len`: its first table's. The collection sizes the lookups and the
activations of every feature of the stack by it, while the input preprocessor lays each table's
features out by the table's own `max_seq_len`. Nothing says so: the activations of the other
tables come back cut and misread.

## What TorchRec does
`stack_tables` checks the tables' kinds and poolings, not their `max_seq_len`, and accepts them.
`StackedSparseCoreEmbeddingConfig.max_seq_len` is `tables[0].max_seq_len`;
`SparseCoreFusedEmbeddingCollection._get_batch_size_per_feature` (the lookups' batch),
`unstack_activations` and `stack_gradients` use it for every feature, while
`SparseCoreInputPreprocessor` gives each feature `batch_size x` its table's own `max_seq_len`
rows. On CPU, a stack of `max_seq_len` 4 and 8 with a batch of 2 (24 rows of activations, 8
wide) unstacked into two features of 8 rows and 12 columns each.

## Example
```pbtxt
tables { name: "clicks" kind: "sequence" num_embeddings: 1000 embedding_dim: 16
         feature_names: "clicks" max_seq_len: 20 stack_table_name: "history" }
tables { name: "views" kind: "sequence" num_embeddings: 1000 embedding_dim: 16
         feature_names: "views" max_seq_len: 50 stack_table_name: "history" }
collection { type: "SparseCoreFusedEmbeddingCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Use instead
```pbtxt
tables { name: "clicks" kind: "sequence" num_embeddings: 1000 embedding_dim: 16
         feature_names: "clicks" max_seq_len: 50 stack_table_name: "history" }
tables { name: "views" kind: "sequence" num_embeddings: 1000 embedding_dim: 16
         feature_names: "views" max_seq_len: 50 stack_table_name: "history" }
collection { type: "SparseCoreFusedEmbeddingCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Fix safety
No automatic fix: whether to lengthen the shorter sequences or to stack the tables apart is the
model's choice.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/embedding_configs.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/embedding_configs.py),
  `StackedSparseCoreEmbeddingConfig.max_seq_len`
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`, `_group_tables_for_stacking`
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `SparseCoreFusedEmbeddingCollection._get_batch_size_per_feature`, `unstack_activations`
- [`torchrec/experimental/torch_tpu/datasets/input_preprocessing.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/datasets/input_preprocessing.py),
  `SparseCoreInputPreprocessor.__call__`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.frontends.torchrec.spec.stacking import SEQUENCE
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for stack in facts.stacking.stacks:
        first = stack.tables[0].table
        head = spec.tables[first]
        if head.kind != SEQUENCE or not head.HasField("max_seq_len"):
            continue  # a table without one: the library refuses it (and says so)
        used = head.max_seq_len
        for place in stack.tables[1:]:
            table = spec.tables[place.table]
            if not table.HasField("max_seq_len") or table.max_seq_len == used:
                continue
            yield Violation(
                ("tables", place.table, "max_seq_len"),
                f"{table_label(spec, place.table)} (max_seq_len {table.max_seq_len}) is stacked "
                f"in `{stack.name}` with {table_label(spec, first)} (max_seq_len {used}): "
                "torchrec accepts it silently, and the sequence collection reads every feature "
                f"of the stack with the first table's max_seq_len {used}, so "
                f"`{table.name}`'s activations come back misread at training",
                f"give the tables of `{stack.name}` one max_seq_len ({used} or "
                f"{table.max_seq_len}), or stack `{table.name}` apart",
            )
