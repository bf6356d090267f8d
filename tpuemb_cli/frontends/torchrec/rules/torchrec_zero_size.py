"""A TorchRec table, limit or topology of zero (or less).

## What it does
Reports a table whose `num_embeddings`, `embedding_dim` or `max_seq_len` is not positive, a
table limit (`max_ids_per_partition`, `max_unique_ids_per_partition`,
`suggested_coo_buffer_size_per_device`) that is not positive, and a collection (or a stacking
call) with no devices, no SparseCores or no batch.

## Why is this bad?
TorchRec checks few of these, and each fails far from where it was written or not at all: a
table of no rows fails in TorchRec's own config, a table of no columns when the collection
reshapes its weights, no devices or no SparseCores in the stacking arithmetic -- and a limit of 0
(no id may reach a SparseCore) is accepted.

## What TorchRec does
On CPU with torchrec 1.9.2: `EmbeddingBagConfig(num_embeddings=0)` raises `ZeroDivisionError`
(`get_weight_init_min`: `-sqrt(1 / num_embeddings)`; a negative count: `ValueError: math domain
error`) unless `weight_init_min` and `weight_init_max` are given, and is then stacked as 0 rows;
`embedding_dim=0` is stacked, and the fused collection raises `RuntimeError` ("cannot reshape
tensor of 0 elements into shape [-1, 0]") in `stack_and_shard_tables`; `global_device_count=0`
raises `ZeroDivisionError` in `_round_up_to_multiple`, `num_sc_per_device=0` in the
collection's batch check; limits of 0 are never checked.

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
  `stack_tables`, `_round_up_to_multiple`, `stack_and_shard_tables`
- [`torchrec/modules/embedding_configs.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/modules/embedding_configs.py),
  `BaseEmbeddingConfig.get_weight_init_min`
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
_TOPOLOGY = ("global_device_count", "num_sc_per_device", "batch_size", "activation_mem_bytes_limit")
# How torchrec 1.9.2 fails on a table of no rows or no columns (on CPU).
_FAILS = {
    "num_embeddings": "its EmbeddingBagConfig's weight init divides by it",
    "embedding_dim": "the collection cannot reshape the stack's weight",
}


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        for field in _TABLE_SIZES:
            size = getattr(table, field)
            if size <= 0:
                yield Violation(
                    ("tables", index, field),
                    f"{table_label(spec, index)} has {field} {size}: a table needs at least "
                    "one row and one column (torchrec fails on it: " + _FAILS[field] + ")",
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
                        f"{field} {number}: "
                        + (
                            "automatic stacking keeps each stack's activations under it, "
                            "which only tables whose activation bytes round down to 0 (a small "
                            "batch) fit: the stacks follow that rounding, not memory"
                            if field == "activation_mem_bytes_limit"
                            else "torchrec needs at least one (it divides by the devices times "
                            "the SparseCores a device)"
                        ),
                        f"set {field} to a positive value (or leave it out for the default)",
                    )
        rotation = "rotation" in holder.DESCRIPTOR.fields_by_name and holder.HasField("rotation")
        if rotation and holder.rotation < 0:
            yield Violation(
                (*path, "rotation"),
                f"rotation {holder.rotation}: stack_tables accepts it and steps each table's "
                "shards by it modulo the SparseCores, so the step it takes is not the one written",
                "use a rotation from 0 to the SparseCores in all, or leave it out",
            )
