"""A JAX stack laid out on no SparseCores.

## What it does
Reports a stack of a jax-tpu-embedding `EmbeddingSpecProto` whose `num_sparsecores` is below 1.

## Why is this bad?
`num_sparsecores` is the number of shards of the stacked table: the devices times the
SparseCores per device. Every other number of the stack is read against it -- the padding of the
vocabularies, the rows per shard, the rotations -- and with none there is no shard to put a row in.

## What jax-tpu-embedding does
`create_proto_from_feature_specs` writes `num_sc_per_device * global_device_count`, and refuses
a `num_sc_per_device` that is not a known chip's (2 or 4). A proto edited or written by other code
to 0 is read by the checkpoint tools as 0 shards: `_unshard_and_unstack_table` divides the padded
vocabulary by it (`ZeroDivisionError`).

## Example
```pbtxt
stacked_table_specs { stack_name: "a" stack_vocab_size: 1024 num_sparsecores: 0 }
```

## Use instead
```pbtxt
stacked_table_specs { stack_name: "a" stack_vocab_size: 1024 num_sparsecores: 8 }
```

## Fix safety
No automatic fix: the device count is not in the file.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `create_proto_from_feature_specs` (`num_sparsecores=(num_sparsecore_per_device *
  global_device_count)`) and `_get_num_sc_per_device`
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_unshard_and_unstack_table`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import stack_label, stack_path
from tpuemb_cli.model.findings import Violation


def check_jax(spec: Any) -> Iterator[Violation]:
    for index, stack in enumerate(spec.stacked_table_specs):
        if stack.num_sparsecores >= 1:
            continue
        yield Violation(
            (*stack_path(index), "num_sparsecores"),
            f"{stack_label(index, stack)} has num_sparsecores {stack.num_sparsecores}: a stack "
            "is sharded over every SparseCore, and its padding, shards and rotations are read "
            "against their count",
            "set num_sparsecores to the devices times the SparseCores per device (2 on v6e and "
            "TPU7x, 4 on v5p), as create_proto_from_feature_specs writes it",
        )
