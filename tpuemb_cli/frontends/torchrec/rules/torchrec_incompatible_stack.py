"""TorchRec tables stacked together that torchrec will not stack.

## What it does
Reports a group of tables that one stack would hold -- named in one `stack_tables` call, or
given one `stack_table_name` (which `prepare_tables_for_stacking`, and so the fused collection,
stacks together) -- when it mixes pooled tables (`EmbeddingBagConfig`, `kind: "bag"`) with
sequence tables (`EmbeddingConfig`, `kind: "sequence"`), or pooled tables of different
`pooling`; and a `stack_tables` call with `fail_on_excess_padding` whose tables' dimensions pad
to different widths.

## Why is this bad?
`stack_tables` refuses the group with `ValueError` before any table is built: in the training
script, or in the collection's constructor.

## What TorchRec does
`stack_tables` raises `ValueError("Cannot stack EmbeddingBagConfig and EmbeddingConfig tables
together")`, `ValueError("Cannot stack EmbeddingBagConfig tables with different pooling types:
PoolingType.SUM vs PoolingType.MEAN")`, or, with `fail_on_excess_padding=True`,
`ValueError("Excess padding detected for stacked table <name>: <n> values.")`. Automatic
stacking (`auto_stack_tables`) never groups such tables: it groups by kind, padded dimension and
pooling (or `max_seq_len`).

## Example
```pbtxt
tables { name: "clicks" kind: "bag" pooling: "SUM" num_embeddings: 1000 embedding_dim: 16
         feature_names: "clicks" stack_table_name: "events" }
tables { name: "views" kind: "bag" pooling: "MEAN" num_embeddings: 1000 embedding_dim: 16
         feature_names: "views" stack_table_name: "events" }
```

## Use instead
```pbtxt
tables { name: "clicks" kind: "bag" pooling: "SUM" num_embeddings: 1000 embedding_dim: 16
         feature_names: "clicks" stack_table_name: "events" }
tables { name: "views" kind: "bag" pooling: "SUM" num_embeddings: 1000 embedding_dim: 16
         feature_names: "views" stack_table_name: "events" }
```

## Fix safety
No automatic fix: which tables share a stack, and how they pool, is the model's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`, `prepare_tables_for_stacking`, `_group_tables_for_stacking`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import (
    Facts,
    explicit_groups,
    prepared_groups,
    table_label,
)
from tpuemb_cli.frontends.torchrec.spec.stacking import ALIGNMENT, SEQUENCE, round_up
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import printable


def _pooling(table: Any) -> str:
    return str(table.pooling or "SUM")


def _group(spec: Any, group: list[int], where: str) -> Iterator[Violation]:
    first = spec.tables[group[0]]
    for i in group[1:]:
        table = spec.tables[i]
        if (table.kind == SEQUENCE) != (first.kind == SEQUENCE):
            yield Violation(
                ("tables", i, "kind"),
                f"{table_label(spec, i)} ({table.kind or 'bag'}) is stacked {where} with "
                f"{table_label(spec, group[0])} ({first.kind or 'bag'}): torchrec cannot stack "
                "pooled and sequence tables together and raises ValueError",
                "stack pooled and sequence tables apart",
            )
            return
        if first.kind != SEQUENCE and _pooling(table) != _pooling(first):
            yield Violation(
                ("tables", i, "pooling"),
                f"{table_label(spec, i)} pools by {printable(_pooling(table))} and is stacked "
                f"{where} with {table_label(spec, group[0])}, which pools by "
                f"{printable(_pooling(first))}: stack_tables raises ValueError (different "
                "pooling types)",
                f"use pooling {_pooling(first)!r}, or stack the two apart",
            )
            return


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for path, group, call in explicit_groups(spec):
        if not group:
            continue
        where = f"by stack_calls[{path[1]}]"
        yield from _group(spec, group, where)
        if call.fail_on_excess_padding:
            dims = {round_up(spec.tables[i].embedding_dim, ALIGNMENT) for i in group}
            if len(dims) > 1:
                yield Violation(
                    (*path, "fail_on_excess_padding"),
                    f"the tables of stack_calls[{path[1]}] pad to widths "
                    f"{', '.join(str(d) for d in sorted(dims))}, and fail_on_excess_padding "
                    "makes stack_tables raise ValueError (Excess padding detected)",
                    "stack tables of one padded width, or let the narrower ones be padded",
                )
    for name, group in prepared_groups(spec):
        if len(group) > 1:
            yield from _group(spec, group, f"as stack `{printable(name)}`")
