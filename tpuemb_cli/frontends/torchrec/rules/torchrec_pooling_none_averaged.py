"""A TorchRec bag table pooled by `NONE`, which the SparseCore preprocessing averages.

## What it does
Reports a bag table (`EmbeddingBagConfig`, `kind: "bag"`) whose `pooling` is `NONE`.

## Why is this bad?
In TorchRec a bag table of `PoolingType.NONE` asks for no pooling. torchrec's SparseCore input
preprocessing knows two combiners only, and gives every bag table that is not `SUM` the mean:
the table's lookups come back averaged over each sample's ids, silently.

## What TorchRec does
`SparseCoreInputPreprocessor` builds each feature's metadata with `combiner = "sum" if
table.pooling == PoolingType.SUM else "mean"`. The stacking and the collection accept the
pooling as any other (tables of `NONE` stack together).

## Example
```pbtxt
tables { name: "tags" kind: "bag" pooling: "NONE" num_embeddings: 1000 embedding_dim: 16
         feature_names: "tags" }
prepare {}
```

## Use instead
For no pooling, a sequence table:

```pbtxt
tables { name: "tags" kind: "sequence" max_seq_len: 20 num_embeddings: 1000 embedding_dim: 16
         feature_names: "tags" }
prepare {}
```

## Fix safety
No automatic fix: how the table pools is the model's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/datasets/input_preprocessing.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/datasets/input_preprocessing.py),
  `SparseCoreInputPreprocessor` (each feature's `combiner`)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.frontends.torchrec.spec.stacking import SEQUENCE
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        if table.kind != SEQUENCE and table.pooling == "NONE":
            yield Violation(
                ("tables", index, "pooling"),
                f"{table_label(spec, index)} is pooled by NONE: torchrec's SparseCore "
                "preprocessing combines every bag table but SUM by the mean, so its lookups "
                "come back averaged",
                "use pooling 'MEAN' to say what it does, or a sequence table for no pooling",
            )
