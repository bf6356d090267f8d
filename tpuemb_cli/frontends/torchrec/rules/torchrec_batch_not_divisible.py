"""A TorchRec fused collection whose batch the SparseCores of a device do not divide.

## What it does
Reports a `SparseCoreFusedEmbeddingBagCollection` or `SparseCoreFusedEmbeddingCollection` whose
`batch_size` is not a multiple of its `num_sc_per_device`.

## Why is this bad?
Each SparseCore of a device looks up an equal share of the device's batch: the collection
refuses the batch when it is constructed.

## What TorchRec does
`_SparseCoreFusedEmbeddingBase.__init__` raises `ValueError("batch_size (<b>) must be divisible
by num_sc_per_device (<n>).")`; with `num_sc_per_device=0`, Python's own `ZeroDivisionError`.

## Example
```pbtxt
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 30 num_sc_per_device: 4 }
```

## Use instead
```pbtxt
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 32 num_sc_per_device: 4 }
```

## Fix safety
No automatic fix: the batch is the input pipeline's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_SparseCoreFusedEmbeddingBase.__init__`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.frontends.torchrec.spec.stacking import DEFAULT_BATCH, value
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    if not spec.HasField("collection"):
        return
    batch = value(spec.collection, "batch_size", DEFAULT_BATCH)
    per_device = facts.per_device
    if per_device <= 0 or batch % per_device == 0:
        return  # no SparseCores: torchrec-zero-size says so
    lower = batch - batch % per_device
    upper = lower + per_device
    yield Violation(
        ("collection", "batch_size"),
        f"batch_size {batch} is not a multiple of num_sc_per_device {per_device}: the "
        "collection raises ValueError when it is constructed",
        f"use a batch of {upper}" + (f" or {lower}" if lower > 0 else ""),
    )
