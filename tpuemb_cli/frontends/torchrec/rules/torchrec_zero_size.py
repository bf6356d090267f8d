"""A TorchRec table, limit or topology of zero (or less).

## What it does
Reports a table whose `num_embeddings`, `embedding_dim` or `max_seq_len` is not positive, a
table limit (`max_ids_per_partition`, `max_unique_ids_per_partition`,
`suggested_coo_buffer_size_per_device`) that is not positive, and a collection (or a stacking
call) with no devices, no SparseCores or no batch.

## Why is this bad?
TorchRec checks none of these. A table of no rows or no columns, a limit of 0 (no id may reach a
SparseCore) or a topology of no SparseCores either fails far from where it was written -- a
`ZeroDivisionError` in the stacking arithmetic -- or is accepted and trains nothing.

## What TorchRec does
`SparseCoreEmbeddingConfig` is a dataclass without checks; `stack_tables` rounds
`num_embeddings` up to a multiple of `8 x global_device_count x num_sc_per_device` (0 rows stay
0; no SparseCores divide by zero) and `embedding_dim` to a multiple of 8.

## Example
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 0 embedding_dim: 16 feature_names: "uid" }
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 100000 embedding_dim: 16 feature_names: "uid" }
```

## Fix safety
No automatic fix: the size is the model's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/embedding_configs.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/embedding_configs.py),
  `SparseCoreEmbeddingConfig`
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`, `_round_up_to_multiple`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.paths import FieldPath

_TABLE_SIZES = ("num_embeddings", "embedding_dim")
_TABLE_OPTIONAL = (
    "max_seq_len",
    "max_ids_per_partition",
    "max_unique_ids_per_partition",
    "suggested_coo_buffer_size_per_device",
)
_TOPOLOGY = ("global_device_count", "num_sc_per_device", "batch_size")


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        for field in _TABLE_SIZES:
            size = getattr(table, field)
            if size <= 0:
                yield Violation(
                    ("tables", index, field),
                    f"{table_label(spec, index)} has {field} {size}: a table needs at least "
                    "one row and one column",
                    f"set {field} to the table's size",
                )
        for field in _TABLE_OPTIONAL:
            if table.HasField(field) and getattr(table, field) <= 0:
                yield Violation(
                    ("tables", index, field),
                    f"{table_label(spec, index)} has {field} {getattr(table, field)}: torchrec "
                    "accepts it, and no id can then be looked up",
                    f"set {field} to a positive value (or leave it out for the default)",
                )
    places: list[tuple[FieldPath, Any]] = []
    if spec.HasField("collection"):
        places.append((("collection",), spec.collection))
    elif spec.HasField("prepare"):
        places.append((("prepare",), spec.prepare))
    places += [(("stack_calls", i), call) for i, call in enumerate(spec.stack_calls)]
    for path, holder in places:
        for field in _TOPOLOGY:
            if field in holder.DESCRIPTOR.fields_by_name and holder.HasField(field):
                number = getattr(holder, field)
                if number <= 0:
                    yield Violation(
                        (*path, field),
                        f"{field} {number}: torchrec needs at least one (it divides by the "
                        "devices times the SparseCores a device)",
                        f"set {field} to a positive value (or leave it out for the default)",
                    )
