"""A TorchRec `stack_tables` call naming tables the spec does not have.

## What it does
Reports a `stack_tables` call whose `table_names` name a table no table of the spec has, name one
twice, or are one string rather than a list of names.

## Why is this bad?
`stack_tables` refuses the call before anything is built. For a string, its message lists the
string's letters: `stack_tables(tables, "user")` tests each table's name as a substring of
`"user"` and then reports `{'u', 's', 'e', 'r'}` as not found; a one-letter string naming a
one-letter table is accepted.

## What TorchRec does
`stack_tables` keeps `[t for t in tables if t.name in table_names]` and raises
`ValueError(f"Table names not found in tables list: {missing}")` when that is not as many tables
as `table_names` has entries (`missing` is the names asked minus the names found: empty when a
name is asked twice).

## Example
```python
table_stacking.stack_tables(tables, "user", global_device_count=8, num_sc_per_device=4)
```

As `spec_from_torchrec` records it:

```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "uid" }
stack_calls { call: "stack_tables" tables: "user" tables_string: true
              global_device_count: 8 num_sc_per_device: 4 }
prepare { global_device_count: 8 num_sc_per_device: 4 }
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "uid" }
stack_calls { call: "stack_tables" tables: ["user"] global_device_count: 8 num_sc_per_device: 4 }
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
from tpuemb_cli.model.nearest import did_you_mean, nearest
from tpuemb_cli.model.words import printable


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    names = [table.name for table in spec.tables]
    for index, call in enumerate(spec.stack_calls):
        if call.call == "auto_stack_tables":
            continue
        path = ("stack_calls", index, "tables")
        if call.tables_string:
            given = "".join(call.tables)
            # stack_tables keeps the tables whose names are substrings of the string: refused
            # unless they are as many as its letters (a string of one-letter names passes).
            if len([n for n in names if n in given]) == len(given):
                continue
            wanted = given if given in names else None
            yield Violation(
                path,
                f"table_names is the string {printable(given)!r}, not a list: stack_tables tests "
                "each table's name as a substring of it and raises ValueError naming its letters "
                "as tables not found",
                f"pass [{wanted!r}]" if wanted is not None else "pass a list of table names",
            )
            continue
        seen: set[str] = set()
        for position, name in enumerate(call.tables):
            if name in seen:
                yield Violation(
                    (*path, position),
                    f"stack_tables is asked for table `{printable(name)}` twice: it raises "
                    "ValueError ('Table names not found in tables list: set()')",
                    "name each table once",
                )
            elif name not in names:
                close = nearest(name, names)
                yield Violation(
                    (*path, position),
                    f"no table is named `{printable(name)}`: stack_tables raises ValueError "
                    "(Table names not found in tables list)" + did_you_mean(close),
                    f"use {close!r}" if close else "name a table of the spec",
                )
            seen.add(name)
