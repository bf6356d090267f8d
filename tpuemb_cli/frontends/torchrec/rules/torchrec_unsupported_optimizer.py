"""A TorchRec fused collection given an optimizer it has no SparseCore update for.

## What it does
Reports a fused collection whose `optimizer_type` is not `torch.optim.SGD`, `torch.optim.Adagrad`
or `torch.optim.Adam` -- the three classes the collection builds optimizer state for and the
SparseCore kernels update (`torch.optim.AdamW`, `RMSprop`, torchrec's own `AdamW` among those it
refuses).

## Why is this bad?
The collection raises only once it has built and placed the first stack's weights: minutes into
a large job, after the allocation of its largest tensor.

## What TorchRec does
`_SparseCoreFusedEmbeddingBase.__init__` builds each stack's weight, then picks its optimizer
state by class, and for any other class raises `ValueError("Unsupported optimizer: <class>.
Only 'sgd', 'adagrad', and 'adam' are supported.")`. The lookups (`_sc_forward`, `_sc_backward`)
dispatch on the same three classes.

## Example
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "uid" }
collection { batch_size: 64 optimizer { type: "AdamW" kwargs { key: "lr" value: 0.001 } } }
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "uid" }
collection { batch_size: 64 optimizer { type: "Adam" kwargs { key: "lr" value: 0.001 } } }
```

## Fix safety
No automatic fix: which optimizer trains the tables is the model's choice.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_SparseCoreFusedEmbeddingBase.__init__`, `_DISPATCH_TABLE`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.frontends.torchrec.spec.memory import SLOTS
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.nearest import did_you_mean, nearest


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    if not spec.HasField("collection"):
        return
    optimizer = spec.collection.optimizer.type
    if optimizer in SLOTS:
        return
    if not facts.stacking.stacks:
        return  # no stack, no weight: the collection never reaches its optimizer's state
    close = nearest(optimizer, list(SLOTS)) if optimizer else None
    said = f"optimizer {optimizer!r}" if optimizer else "no optimizer_type"
    yield Violation(
        ("collection", "optimizer", "type"),
        f"{said}: the fused collection updates SGD, Adagrad and Adam (torch.optim's) only, and "
        "raises ValueError (Unsupported optimizer) after building the first stack's weights"
        + did_you_mean(close),
        f"use {close!r}" if close else "use SGD, Adagrad or Adam",
    )
