"""A JAX stack of tables whose padded embedding dimensions differ: memory spent on padding.

## What it does
Reports an explicit stack (`jax.stack`: what the script asks `stack_tables` for, or a stack the
library already made) of a spec made from jax-tpu-embedding's objects
(`tpuemb_cli.jax.spec_from_jax`) whose tables' embedding dimensions, each rounded up to a
multiple of 8, are not all the same -- exactly the condition on which `stack_tables` logs its
warning -- and says how many values, bytes and what fraction of the stack are that excess
padding. A stack whose call passes `fail_on_excess_padding=True` (`jax.fail_on_excess_padding`)
is an error instead (jax-invalid-stacking): the library raises.

## Why is this bad?
A stack is one array as wide as its widest table: each narrower table's rows are padded with
columns that hold nothing, on every device, in the stack's parameters and in each slot variable
of its optimizer (the same shape again: one for Adagrad, two for Adam or FTRL). Stacking a table
of width 8 with one of width 64 makes the first take eight times its memory.

## What jax-tpu-embedding does
`stack_tables` pads every table to the stack's widest padded dimension
(`padded_embedding_dim = max(table_to_padded_dim.values())`); when they are not all equal it
counts `excess_padding = sum((padded_embedding_dim - padded_dim) * padded_vocab)` and, unless
`fail_on_excess_padding=True` (then `ValueError`), logs "WARNING during stack_tables: Excess
padding detected for stacked table ..." and stacks them. `auto_stack_tables` groups tables by
padded dimension, so its stacks never pad so. The figure here is the library's `excess_padding`;
bytes are 4 a value (float32), times the parameters and the slot variables.

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 100000 dim: 8 combiner: "sum" jax { stack: "ab" } }
tables { name: "b" vocabulary_size: 100000 dim: 64 combiner: "sum" jax { stack: "ab" } }
```

## Use instead
Stack tables whose dimensions round up to the same multiple of 8, and leave the others alone
or in stacks of their own width (`auto_stack_tables` does so):
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 100000 dim: 8 combiner: "sum" }
tables { name: "b" vocabulary_size: 100000 dim: 64 combiner: "sum" }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `stack_tables` and `_group_tables_for_stacking`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import table_label, table_path
from tpuemb_cli.frontends.jax.spec.memory import SLOTS
from tpuemb_cli.frontends.jax.spec.optimizer_proto import optimizer_proto
from tpuemb_cli.frontends.jax.spec.stacking import (
    FLOAT_BYTES,
    excess_padding,
    explicit_stacks,
    first_use,
)
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import count
from tpuemb_cli.pb.jax.embedding_spec_pb2 import OptimizerSpecProto
from tpuemb_cli.spec.facts import SpecFacts


def _arrays(table: Any) -> tuple[int, str]:
    """How many arrays of the stack's shape the table's optimizer makes (the parameters and its
    slot variables), and how the message says so; 1 for an optimizer whose slots are unknown."""
    kind = OptimizerSpecProto.OptimizerType.Name(optimizer_proto(table.jax.optimizer).type)
    slots = SLOTS.get(kind)
    if slots is None:
        return 1, "in its parameters (and as much again in each slot variable of its optimizer)"
    if not slots:
        return 1, "in its parameters"
    variables = "slot variable" if len(slots) == 1 else "slot variables"
    return 1 + len(slots), f"in its parameters and {len(slots)} {variables}"


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    if spec.jax.auto_stack:
        return  # auto-stacking groups by padded dimension; explicit stacks are TE696's then
    used, failing = first_use(spec), set(spec.jax.fail_on_excess_padding)
    for name, members in explicit_stacks(spec).items():
        if name in failing or not all(i in used for i in members):
            continue  # refused: jax-invalid-stacking
        found = excess_padding(spec, members, used)
        if found is None:
            continue
        first = spec.tables[members[0]]
        arrays, where = _arrays(first)
        share = found.excess / found.values
        yield Violation(
            (*table_path(members[0]), "jax", "stack"),
            f'stack "{name}" pads its tables {found.names} (padded embedding dimensions '
            f"{found.padded_dims}) to {found.width} columns: {found.excess:,} of its "
            f"{found.values:,} values ({share:.1%}) are padding beyond each table's own, "
            f"{count(found.excess * FLOAT_BYTES * arrays)} bytes {where} across the devices "
            f'(stack_tables logs "Excess padding detected for stacked table {name}"; '
            f"{table_label(members[0], first)} is first in it)",
            "stack tables whose embedding dimensions round up to the same multiple of 8 (as "
            "auto_stack_tables does), and leave the others in stacks of their own",
        )
