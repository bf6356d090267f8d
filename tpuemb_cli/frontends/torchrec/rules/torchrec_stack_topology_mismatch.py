"""A TorchRec stack laid out for another number of SparseCores than its collection's.

## What it does
Reports a stack made by an earlier `stack_tables` or `auto_stack_tables` call for a number of
SparseCores (`global_device_count x num_sc_per_device`) other than the fused collection's --
typically because the call was left at its defaults, one device of two SparseCores.

## Why is this bad?
A stack's padding and row offsets are computed for the SparseCores it is laid out on. The
collection keeps the stack an earlier call made and shards its weight for its own SparseCores:
either the sharding fails at construction, or every table after the first is looked up, saved
and restored at rows that hold another table's -- without an error.

## What TorchRec does
`prepare_tables_for_stacking` skips tables already stacked; `_SparseCoreFusedEmbeddingBase.__init__`
builds each table's weight (`padded_vocab_size // global_device_count` rows) and calls
`stack_and_shard_tables` with its own topology, which views the rows as
`(num_sc_per_device, rows // num_sc_per_device, dim)` and concatenates the tables on each
SparseCore -- ignoring the stack's `row_offsets_in_shard`, which the input preprocessor
(`get_col_offset`) and `unshard_and_unstack_tables` (`get_unstacked_table_weights`,
`unstacked_state_dict`) read. On CPU:
- two tables of 8 rows stacked with the defaults (1 x 2: 16 rows each), in a collection of 4
  devices x 8: `RuntimeError: shape '[8, 0, 8]' is invalid for input of size 32`, at
  construction;
- two tables of 32 rows stacked for 2 x 2, in a collection of 1 x 2: the stack puts the second
  table at row 8 of each SparseCore, the weight at row 16; `get_unstacked_table_weights()`
  returned for it 8 rows of the first table's, then 8 of its own, on each SparseCore;
- two tables of 8 rows stacked for 1 x 2, in a collection of 1 x 4: the second came back with no
  rows at all.

## Example
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 1000 embedding_dim: 8 feature_names: "fa" }
tables { name: "b" kind: "bag" num_embeddings: 1000 embedding_dim: 8 feature_names: "fb" }
stack_calls { call: "stack_tables" tables: "a" tables: "b" }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 16
             global_device_count: 8 num_sc_per_device: 4
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Use instead
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 1000 embedding_dim: 8 feature_names: "fa" }
tables { name: "b" kind: "bag" num_embeddings: 1000 embedding_dim: 8 feature_names: "fb" }
stack_calls { call: "stack_tables" tables: "a" tables: "b"
              global_device_count: 8 num_sc_per_device: 4 }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 16
             global_device_count: 8 num_sc_per_device: 4
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Fix safety
No automatic fix: tpuemb does not know which topology the job runs on.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`, `prepare_tables_for_stacking`, `stack_and_shard_tables`,
  `unshard_and_unstack_tables`
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_SparseCoreFusedEmbeddingBase.__init__`, `get_unstacked_table_weights`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.frontends.torchrec.rules.lib.origins import made_by
from tpuemb_cli.frontends.torchrec.spec.stacking import (
    DEFAULT_DEVICES,
    DEFAULT_SPARSECORES,
    Stack,
    value,
)
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    if not spec.HasField("collection"):
        return
    devices, per_device = facts.devices, facts.per_device
    if devices <= 0 or per_device <= 0:
        return  # torchrec-zero-size says so
    for stack in facts.stacking.stacks:
        if stack.call_index < 0 or stack.num_sparsecores == devices * per_device:
            continue
        call = spec.stack_calls[stack.call_index]
        made = (
            value(call, "global_device_count", DEFAULT_DEVICES),
            value(call, "num_sc_per_device", DEFAULT_SPARSECORES),
        )
        defaults = (
            " (the call's defaults)"
            if not call.HasField("global_device_count") and not call.HasField("num_sc_per_device")
            else ""
        )
        happens = _what_happens(spec, stack, devices, per_device)
        if happens is None:
            continue
        yield Violation(
            ("stack_calls", stack.call_index),
            f"stack `{stack.name}` was laid out by {made_by(spec, stack)} for {made[0]} "
            f"device(s) x {made[1]} SparseCores{defaults}, but the collection runs on "
            f"{devices} x {per_device}: it keeps the stack and shards its weight for its own "
            f"SparseCores, and {happens}",
            f"give the stack call global_device_count {devices} and num_sc_per_device "
            f"{per_device}, as the collection's",
        )


def _what_happens(spec: Any, stack: Stack, devices: int, per_device: int) -> str | None:
    """What the collection does with ``stack`` (None: nothing goes wrong)."""
    dim = stack.stack_embedding_dim
    for place in stack.tables:
        rows = place.padded_vocab_size // devices
        if rows % per_device:
            chunk = rows // per_device
            return (
                f"raises RuntimeError at construction (\"shape '[{per_device}, {chunk}, {dim}]' "
                f'is invalid for input of size {rows * dim}")'
            )
    offset = 0
    for place in stack.tables:
        if place.row_offset_in_shard != offset:
            return (
                f"table `{place.name}`, at row {offset} of each SparseCore in the weight, is "
                f"looked up and saved from row {place.row_offset_in_shard} (the stack's row "
                "offset): rows that are not its own, without an error"
            )
        offset += place.padded_vocab_size // devices // per_device
    return None
