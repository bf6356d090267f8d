"""A TorchRec spec value that names nothing TorchRec has.

## What it does
Reports a table `kind` other than `bag` (an `EmbeddingBagConfig`) or `sequence` (an
`EmbeddingConfig`), a `pooling` that is no member of TorchRec's `PoolingType` (`SUM`, `MEAN`,
`NONE`), a collection `type` other than the two fused collections
(`SparseCoreFusedEmbeddingBagCollection`, `SparseCoreFusedEmbeddingCollection`) and a stack call
other than `stack_tables` or `auto_stack_tables` -- with the name probably meant.

## Why is this bad?
The spec names TorchRec's classes, functions and enum members: a name that is none of them is a
typo, and tpuemb has to guess what it stands for (a bag table, SUM pooling, the bag collection,
`stack_tables`: what it reads for an empty value), so every other finding on it may be wrong.
In Python the same names fail at once: `PoolingType["AVG"]` raises `KeyError`, an unknown class
or function `AttributeError` (or `NameError`).

## What TorchRec does
`torchrec.modules.embedding_configs.PoolingType` has the members `SUM`, `MEAN` and `NONE`;
`torchrec.experimental.torch_tpu` has the two fused collections and the two stacking calls
named above.

## Example
```pbtxt
tables { name: "a" kind: "bag" pooling: "AVG" num_embeddings: 64 embedding_dim: 8
         feature_names: "fa" }
```

## Use instead
```pbtxt
tables { name: "a" kind: "bag" pooling: "MEAN" num_embeddings: 64 embedding_dim: 8
         feature_names: "fa" }
```

## Fix safety
No automatic fix: the suggestion is a guess.

## Options
None.

## References
- [`torchrec/modules/embedding_configs.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/modules/embedding_configs.py),
  `PoolingType`, `EmbeddingBagConfig`, `EmbeddingConfig`
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `SparseCoreFusedEmbeddingBagCollection`, `SparseCoreFusedEmbeddingCollection`
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`, `auto_stack_tables`
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
from tpuemb_cli.model.nearest import did_you_mean, nearest

_KINDS = (BAG, SEQUENCE)
_KIND_ALIASES = {
    "embedding_bag_config": BAG,
    "pooled": BAG,
    "embedding_config": SEQUENCE,
    "unpooled": SEQUENCE,
    "seq": SEQUENCE,
}
_POOLINGS = ("SUM", "MEAN", "NONE")
_POOLING_ALIASES = {"avg": "MEAN", "average": "MEAN", "pooling_type.sum": "SUM"}
_COLLECTIONS = (BAG_COLLECTION, SEQUENCE_COLLECTION)
_COLLECTION_ALIASES = {
    "embedding_bag_collection": BAG_COLLECTION,
    "sparse_core_embedding_bag_collection": BAG_COLLECTION,
    "fused_embedding_bag_collection": BAG_COLLECTION,
    "embedding_collection": SEQUENCE_COLLECTION,
    "sparse_core_embedding_collection": SEQUENCE_COLLECTION,
    "fused_embedding_collection": SEQUENCE_COLLECTION,
}
_CALLS = ("stack_tables", "auto_stack_tables")


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        if table.kind and table.kind not in _KINDS:
            close = nearest(table.kind, _KINDS, _KIND_ALIASES)
            yield Violation(
                ("tables", index, "kind"),
                f'{table_label(spec, index)} has kind "{table.kind}": a table is "bag" (an '
                'EmbeddingBagConfig) or "sequence" (an EmbeddingConfig), and tpuemb reads it as '
                "a bag" + did_you_mean(close),
                _use(close, "bag", "sequence"),
            )
        if table.pooling and table.pooling not in _POOLINGS:
            close = nearest(table.pooling, _POOLINGS, _POOLING_ALIASES)
            yield Violation(
                ("tables", index, "pooling"),
                f'{table_label(spec, index)} has pooling "{table.pooling}": TorchRec\'s '
                f'PoolingType has SUM, MEAN and NONE only (PoolingType["{table.pooling}"] raises '
                "KeyError)" + did_you_mean(close),
                _use(close, *_POOLINGS),
            )
    if spec.HasField("collection"):
        what = spec.collection.type
        if what and what not in _COLLECTIONS:
            close = nearest(what, _COLLECTIONS, _COLLECTION_ALIASES)
            yield Violation(
                ("collection", "type"),
                f'collection type "{what}": torchrec.experimental.torch_tpu\'s fused collections '
                f"are {BAG_COLLECTION} and {SEQUENCE_COLLECTION}, and tpuemb reads it as the "
                "first" + did_you_mean(close),
                _use(close, *_COLLECTIONS),
            )
    for index, call in enumerate(spec.stack_calls):
        if call.call and call.call not in _CALLS:  # "": the default, stack_tables
            close = nearest(call.call, _CALLS)
            yield Violation(
                ("stack_calls", index, "call"),
                f'stack call "{call.call}": table_stacking\'s calls are stack_tables and '
                "auto_stack_tables, and tpuemb reads it as stack_tables" + did_you_mean(close),
                _use(close, *_CALLS),
            )


def _use(close: str | None, *names: str) -> str:
    if close:
        return f'write "{close}"'
    return "write " + " or ".join(f'"{name}"' for name in names)
