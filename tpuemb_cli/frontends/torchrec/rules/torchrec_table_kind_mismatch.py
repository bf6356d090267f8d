"""A sequence table in a TorchRec bag collection, or a bag table in a sequence collection.

## What it does
Reports a sequence table (a `SparseCoreEmbeddingConfig` wrapping an `EmbeddingConfig`) given to
a `SparseCoreFusedEmbeddingBagCollection`, and a bag table (wrapping an `EmbeddingBagConfig`)
given to a `SparseCoreFusedEmbeddingCollection`.

## Why is this bad?
Neither collection checks its tables' kind. Each stacks the other kind's tables and builds their
weights all the same, then reads their activations as if they were of its own kind: a sequence
table's ids come back pooled, and a bag table fails only at its first forward pass (or, given a
`max_seq_len`, is read as a sequence).

## What TorchRec does
The bag collection's `embedding_bag_configs()` leaves a sequence table out, but
`_SparseCoreFusedEmbeddingBase.__init__` stacks it and gives it a weight, and `forward`
(`unstack_activations`) reads `batch_size` rows a feature -- one pooled row a sample, not
`batch_size x max_seq_len` -- and returns them in its `KeyedTensor`. The sequence collection's
`embedding_configs()` leaves a bag table out; its forward and `stack_gradients` read every stack
with the stack's `max_seq_len`, which a bag table does not have: they raise
`ValueError("max_seq_len must be specified for sequence table <stack>")` after the lookups ran
(the stack is a bag table's, whatever the message says). A bag table given a `max_seq_len` is
read as a sequence of that many ids a sample, its pooling ignored. All confirmed on CPU.

## Example
```pbtxt
tables { name: "history" kind: "sequence" num_embeddings: 1000 embedding_dim: 16
         feature_names: "clicks" max_seq_len: 20 }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Use instead
```pbtxt
tables { name: "history" kind: "sequence" num_embeddings: 1000 embedding_dim: 16
         feature_names: "clicks" max_seq_len: 20 }
collection { type: "SparseCoreFusedEmbeddingCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Fix safety
No automatic fix: whether the table is pooled is the model's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `SparseCoreFusedEmbeddingBagCollection.embedding_bag_configs`, `unstack_activations`;
  `SparseCoreFusedEmbeddingCollection.embedding_configs`, `unstack_activations`,
  `stack_gradients`
- [`torchrec/experimental/torch_tpu/modules/embedding_configs.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/embedding_configs.py),
  `StackedSparseCoreEmbeddingConfig.max_seq_len`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.frontends.torchrec.spec.stacking import (
    BAG,
    BAG_COLLECTION,
    SEQUENCE,
    SEQUENCE_COLLECTION,
)
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    if not spec.HasField("collection") or facts.stacking.refusal is not None:
        return  # no collection, or one the library refuses before it reads a table
    what = spec.collection.type or BAG_COLLECTION
    for index, table in enumerate(spec.tables):
        label = table_label(spec, index)
        if what == BAG_COLLECTION and table.kind == SEQUENCE:
            rows = (
                f" instead of batch_size x max_seq_len {table.max_seq_len}"
                if table.HasField("max_seq_len")
                else ""
            )
            yield Violation(
                ("tables", index, "kind"),
                f"{label} is a sequence table (EmbeddingConfig) in a {BAG_COLLECTION}: the "
                "collection stacks it and builds its weight, embedding_bag_configs() leaves it "
                "out, and forward returns its features pooled, batch_size rows each (one a "
                "sample)" + rows,
                f"make `{table.name}` a bag table (EmbeddingBagConfig), or give the sequence "
                f"tables a {SEQUENCE_COLLECTION}",
            )
        elif what == SEQUENCE_COLLECTION and table.kind in (BAG, ""):
            stack = facts.stacking.stack_of[index]
            head = spec.tables[stack.tables[0].table] if stack is not None else table
            name = stack.name if stack is not None else table.name
            if head.HasField("max_seq_len"):
                happens = (
                    f"reads stack `{name}` as sequences of max_seq_len {head.max_seq_len} ids a "
                    "sample, its pooling ignored"
                )
            else:
                happens = (
                    "raises ValueError at forward and in stack_gradients, after the lookups ran: "
                    f'"max_seq_len must be specified for sequence table {name}" (its stack, a bag '
                    "table's)"
                )
            yield Violation(
                ("tables", index, "kind"),
                f"{label} is a bag table (EmbeddingBagConfig) in a {SEQUENCE_COLLECTION}: the "
                "collection stacks it and builds its weight, embedding_configs() leaves it out, "
                "and it " + happens,
                f"make `{table.name}` a sequence table (EmbeddingConfig with max_seq_len), or give "
                f"the bag tables a {BAG_COLLECTION}",
            )
