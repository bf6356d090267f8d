"""A built TorchRec collection whose stacks are not what torchrec computes for its topology.

## What it does
For a spec read from a built fused collection (`spec_from_torchrec(collection)`, which records
the stacks it holds in `stacks`), compares each recorded stack -- its rows, width, tables'
padded sizes, row offsets and rotations -- with the stack torchrec's `stack_tables` makes of the
same tables for the collection's devices and SparseCores, and reports the first field that
differs.

## Why is this bad?
The collection shards every stack for its own topology. A stack laid out for another -- its
tables stacked before the collection with other `global_device_count` / `num_sc_per_device`
(the stacking calls' defaults are 1 and 2), which the constructor does not always refuse -- holds
its tables' rows where the lookups do not look: training reads and updates the wrong rows, and a
checkpoint saves them so.

## What TorchRec does
`prepare_tables_for_stacking` leaves stacked tables alone; `stack_and_shard_tables` cuts each
stack's weight by the collection's topology with the stack's own offsets. On CPU, tables stacked
for 2 devices of 2 SparseCores in a collection of 1 device of 2 are built without an error, and
half of one table's rows come back as the other's (`get_unstacked_table_weights`).

## Example
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 8 embedding_dim: 8 feature_names: "a" }
tables { name: "b" kind: "bag" num_embeddings: 8 embedding_dim: 8 feature_names: "b" }
collection { batch_size: 2 global_device_count: 1 num_sc_per_device: 2
             optimizer { type: "Adagrad" } }
stacks { stack_name: "a_b" tables: ["a", "b"] stack_num_embeddings: 64 stack_embedding_dim: 8
         row_offsets_in_shard { key: "a" value: 0 } row_offsets_in_shard { key: "b" value: 8 }
         shard_rotations { key: "a" value: 0 } shard_rotations { key: "b" value: 2 }
         padded_vocab_sizes { key: "a" value: 32 } padded_vocab_sizes { key: "b" value: 32 } }
```

## Use instead
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 8 embedding_dim: 8 feature_names: "a" }
tables { name: "b" kind: "bag" num_embeddings: 8 embedding_dim: 8 feature_names: "b" }
collection { batch_size: 2 global_device_count: 1 num_sc_per_device: 2
             optimizer { type: "Adagrad" } }
stacks { stack_name: "a_b" tables: ["a", "b"] stack_num_embeddings: 32 stack_embedding_dim: 8
         row_offsets_in_shard { key: "a" value: 0 } row_offsets_in_shard { key: "b" value: 8 }
         shard_rotations { key: "a" value: 0 } shard_rotations { key: "b" value: 0 }
         padded_vocab_sizes { key: "a" value: 16 } padded_vocab_sizes { key: "b" value: 16 } }
```

## Fix safety
No automatic fix: stack the tables for the collection's topology (or let the collection stack
them).

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`, `prepare_tables_for_stacking`, `stack_and_shard_tables`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import printable

_MAPS = ("row_offsets_in_shard", "shard_rotations", "padded_vocab_sizes")


def _differs(recorded: Any, computed: dict[str, Any]) -> str:
    """The first field where ``recorded`` is not ``computed``: "" when none is."""
    if list(recorded.tables) != [t["name"] for t in computed["tables"]]:
        names = [t["name"] for t in computed["tables"]]
        return f"tables {list(recorded.tables)} (computed {names})"
    for field in ("stack_num_embeddings", "stack_embedding_dim"):
        if getattr(recorded, field) != computed[field]:
            return f"{field} {getattr(recorded, field):,} (computed {computed[field]:,})"
    for field in _MAPS:
        held = dict(getattr(recorded, field))
        for name, value in computed[field].items():
            if name in held and held[name] != value:
                return f"{field}[{name}] {held[name]:,} (computed {value:,})"
    return ""


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    if not spec.stacks or facts.stacking.refusal is not None:
        return
    # Every stack made, those a same-named one hid included (TE851 says that): a recorded stack
    # is compared with the one of its name and tables, else the first of its name.
    computed = [s.to_dict(spec) for s in (*facts.stacking.stacks, *facts.stacking.shadowed)]
    names = {table.name for table in spec.tables}
    for index, recorded in enumerate(spec.stacks):
        unknown = [name for name in recorded.tables if name not in names]
        if unknown or not recorded.tables:
            said = (
                "holds no table"
                if not recorded.tables
                else "holds "
                + ", ".join(f"`{printable(n)}`" for n in unknown[:3])
                + (" ..." if len(unknown) > 3 else "")
                + ", which the spec's tables do not have"
            )
            yield Violation(
                ("stacks", index, "tables"),
                f"recorded stack `{printable(recorded.stack_name)}` {said}: no collection holds "
                "such a stack (the spec was not written from one)",
                "write the spec again with spec_from_torchrec from the built collection",
            )
            continue
        named = [made for made in computed if made["stack_name"] == recorded.stack_name]
        same = [m for m in named if [t["name"] for t in m["tables"]] == list(recorded.tables)]
        if not named:
            continue
        made = (same or named)[0]
        why = _differs(recorded, made)
        if why:
            yield Violation(
                ("stacks", index),
                f"stack `{printable(recorded.stack_name)}` of the collection has {why} for "
                f"its {facts.devices} devices of {facts.per_device} SparseCores: it was laid out "
                "for another topology, and the collection's lookups read other rows than its "
                "tables'",
                "stack the tables for the collection's global_device_count and "
                "num_sc_per_device, or let the collection stack them",
            )
