"""Two TorchRec tables of one name.

## What it does
Reports each table whose name an earlier table of the spec already has.

## Why is this bad?
torchrec keys a stack's layout by table name. Stacked together -- which is what
`prepare_tables_for_stacking` does with two tables of one name, as one group -- the second
table's padded size, row offset and rotation replace the first's, and the stack is laid out for
two copies of the second table: the first table's rows are read from the wrong place, silently.
Named in a `stack_tables` call, they make it refuse with a message that names nothing.

## What TorchRec does
`prepare_tables_for_stacking` groups the tables by `stack_table_name or name` and stacks the
group; `stack_tables` fills `padded_vocab_sizes`, `row_offsets_in_shard` and `shard_rotations`
by name. `stack_tables(tables, ["a"])` with two tables named `a` raises `ValueError("Table names
not found in tables list: set()")`: its group has two tables for one name asked.

## Example
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "uid" }
tables { name: "user" kind: "bag" num_embeddings: 50 embedding_dim: 16 feature_names: "country" }
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "uid" }
tables { name: "country" kind: "bag" num_embeddings: 50 embedding_dim: 16 feature_names: "country" }
```

## Fix safety
No automatic fix: which name each table keeps is the model's (its checkpoint keys follow).

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `stack_tables`, `prepare_tables_for_stacking`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import printable


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    first: dict[str, int] = {}
    for index, table in enumerate(spec.tables):
        if table.name not in first:
            first[table.name] = index
            continue
        yield Violation(
            ("tables", index, "name"),
            f"table `{printable(table.name)}` has the name of tables[{first[table.name]}]: "
            "torchrec lays a stack out by table name, so one table's rows are read where the "
            "other's are (stack_tables refuses them with ValueError: 'Table names not found in "
            "tables list: set()')",
            "give each table its own name",
        )
