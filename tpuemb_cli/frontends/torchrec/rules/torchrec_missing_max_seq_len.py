"""A TorchRec sequence table without `max_seq_len`.

## What it does
Reports a sequence table (an `EmbeddingConfig`, `kind: "sequence"`) whose
`SparseCoreEmbeddingConfig` has no `max_seq_len`.

## Why is this bad?
A sequence table's lookups are laid out for `max_seq_len` ids a sample; without it torchrec
cannot size them, and every way it is stacked refuses it -- after the script has built its tables.

## What TorchRec does
`stack_tables` (and so `prepare_tables_for_stacking` and the fused collections) raises
`ValueError("Table '<name>' is an unpooled EmbeddingConfig but has max_seq_len=None.
`max_seq_len` must be specified for all unpooled tables to stack tables.")`; automatic
stacking raises the same for its activation memory, and `SparseCoreFusedEmbeddingCollection`
raises `ValueError("max_seq_len must be provided for EmbeddingConfig table <name>")` first.

## Example
```pbtxt
tables { name: "history" kind: "sequence" num_embeddings: 100000 embedding_dim: 32
         feature_names: "history" }
```

## Use instead
```pbtxt
tables { name: "history" kind: "sequence" num_embeddings: 100000 embedding_dim: 32
         feature_names: "history" max_seq_len: 50 }
```

## Fix safety
No automatic fix: the longest sequence is the data's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`, `_group_tables_for_stacking`
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `SparseCoreFusedEmbeddingCollection.__init__`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.frontends.torchrec.spec.stacking import SEQUENCE
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        if table.kind == SEQUENCE and not table.HasField("max_seq_len"):
            yield Violation(
                ("tables", index),
                f"{table_label(spec, index)} is a sequence table (EmbeddingConfig) without "
                "max_seq_len: torchrec raises ValueError when it stacks it",
                "set max_seq_len to the most ids a sample of its features holds",
            )
