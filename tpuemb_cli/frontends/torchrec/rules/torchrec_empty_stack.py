"""A TorchRec `stack_tables` call with no tables.

## What it does
Reports a `stack_tables` call whose `table_names` is empty.

## Why is this bad?
`stack_tables` looks at the first table of the group before it checks anything, and an empty
group has none: the call fails with an `IndexError` that says nothing of stacking.

## What TorchRec does
`stack_tables` builds `group = [t for t in tables if t.name in table_names]` (empty), then reads
`group[0].config`: `IndexError: list index out of range`.

## Example
```python
table_stacking.stack_tables(tables, [], global_device_count=8, num_sc_per_device=4)
```

As `spec_from_torchrec` records it:

```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "uid" }
stack_calls { call: "stack_tables" global_device_count: 8 num_sc_per_device: 4 }
prepare { global_device_count: 8 num_sc_per_device: 4 }
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "uid" }
prepare { global_device_count: 8 num_sc_per_device: 4 }
```

## Fix safety
No automatic fix: which tables to stack is the model's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for index, call in enumerate(spec.stack_calls):
        if call.call != "auto_stack_tables" and not call.tables:
            yield Violation(
                ("stack_calls", index),
                "stack_tables is called with no table names: it raises IndexError (list index "
                "out of range) before it stacks anything",
                "name the tables to stack, or drop the call",
            )
