"""TorchRec tables of different widths in one stack, padded to the widest.

## What it does
Reports a stack whose tables' dimensions, each rounded up to a multiple of 8, differ: every
table of the stack is padded to the widest, and the padding is stored, trained state and all,
on every device.

## Why is this bad?
The padding takes memory and bandwidth for nothing: a stack of a 64-wide table and a 4-wide
table of a million rows each stores 60 million values of zeros, twice more with Adam. torchrec
only logs a warning.

## What TorchRec does
`stack_tables` pads each table's `embedding_dim` to a multiple of 8, then every table to the
widest; it logs `WARNING during stack_tables: Excess padding detected for stacked table <name>:
<n> values.`, or raises it as `ValueError` with `fail_on_excess_padding=True`
(torchrec-incompatible-stack reports that). `auto_stack_tables` never makes such a stack: it
groups by padded dimension.

## Example
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 100000 embedding_dim: 64 feature_names: "u" }
tables { name: "country" kind: "bag" num_embeddings: 300 embedding_dim: 4 feature_names: "c" }
stack_calls { call: "stack_tables" tables: ["user", "country"]
              global_device_count: 8 num_sc_per_device: 4 }
prepare { global_device_count: 8 num_sc_per_device: 4 }
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 100000 embedding_dim: 64 feature_names: "u" }
tables { name: "country" kind: "bag" num_embeddings: 300 embedding_dim: 4 feature_names: "c" }
prepare { global_device_count: 8 num_sc_per_device: 4 }
```

## Fix safety
No automatic fix: which tables share a stack is the model's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.frontends.torchrec.spec.stacking import ALIGNMENT, round_up
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import printable


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    reported: set[int] = set()
    for stack in (*facts.stacking.stacks, *facts.stacking.shadowed):
        if not stack.excess_padding or id(stack) in reported:
            continue
        reported.add(id(stack))
        narrow = [
            p.table
            for p in stack.tables
            if round_up(spec.tables[p.table].embedding_dim, ALIGNMENT) < stack.stack_embedding_dim
        ]
        if not narrow:
            continue
        names = ", ".join(table_label(spec, i) for i in narrow[:3]) + (
            ", ..." if len(narrow) > 3 else ""
        )
        yield Violation(
            ("tables", narrow[0], "embedding_dim"),
            f"stack `{printable(stack.name)}` pads {names} to its widest table's "
            f"{stack.stack_embedding_dim} columns: {stack.excess_padding:,} values of padding, "
            "stored on the devices with the optimizer's state",
            "stack tables of one padded width together",
        )
