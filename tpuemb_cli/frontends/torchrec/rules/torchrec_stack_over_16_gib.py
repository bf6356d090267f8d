"""A TorchRec stack whose weight on one device passes 16 GiB.

## What it does
Reports a stack whose weight on each device -- `stack_num_embeddings // global_device_count`
rows of `stack_embedding_dim` float32 values, as the fused collection allocates it -- takes more
than 16 GiB.

## Why is this bad?
torchrec's own notes say that XLA's SparseCore compiler supports at most 16 GiB of HBM a tensor,
and that larger stacked tables would have to be split or sharded otherwise: a stack past it is
one the library's authors do not expect to compile, however much HBM the chip has.

## What TorchRec does
Nothing checks the size. The limit is a TODO of torchrec 1.9.2's Pallas lookup
(`pooled_lookup_offset.py`: "xla compiler for sparseCore can only supports 16 GiB of HBM per
tensor, so if we have large stacked embeddings then we would need to either split them up, or
re-think how we want to shard"); tpuemb has not seen it fail on a TPU.

## Example
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 80000000 embedding_dim: 64 feature_names: "u" }
collection { batch_size: 64 global_device_count: 1 optimizer { type: "SGD" } }
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 80000000 embedding_dim: 64 feature_names: "u" }
collection { batch_size: 64 global_device_count: 4 optimizer { type: "SGD" } }
```

## Fix safety
No automatic fix: the devices are the job's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/pallas/pooled_lookup_offset.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/pallas/pooled_lookup_offset.py),
  the TODOs of its kernel's docstring
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_SparseCoreFusedEmbeddingBase.__init__` (each stack's weight)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.frontends.torchrec.spec.memory import model
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.words import printable

LIMIT = 16 * 1024**3


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    memory = model(spec, facts.stacking)
    if memory is None:
        return
    for held, stack in zip(memory.stacks, facts.stacking.stacks, strict=True):
        if held.array_bytes <= LIMIT:
            continue
        devices = -(-held.array_bytes * memory.devices // LIMIT)
        yield Violation(
            (*facts.topology_path, "global_device_count"),
            f"stack `{printable(stack.name)}` takes {size(held.array_bytes)} a device "
            f"({held.rows_per_device:,} rows x {held.width}): past the 16 GiB a tensor that "
            "torchrec's notes say XLA's SparseCore compiler supports",
            f"run on {devices} devices or more, or split the stack's tables",
        )
