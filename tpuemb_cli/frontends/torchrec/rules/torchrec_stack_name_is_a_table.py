"""A TorchRec `stack_table_name` that is another table's own name.

## What it does
Reports a table whose `stack_table_name` is the name of another table that has no
`stack_table_name` of its own, when `prepare_tables_for_stacking` groups them (no automatic
stacking took them first).

## Why is this bad?
`prepare_tables_for_stacking` groups tables by `stack_table_name`, and a table without one by its
own name: the two tables land in one stack named for the other table, which looks like that table
alone -- its checkpoint keys, its statistics and its memory now hold both. A stack name meant for
a group of its own reads as a typo of that, and nothing says so.

## What TorchRec does
`prepare_tables_for_stacking` keys its groups by `t.stack_table_name or t.name` and stacks each
group under that key (on CPU: tables `a` with `stack_table_name="b"` and `b` make one stack `b`
of tables `a` and `b`).

## Example
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "u"
         stack_table_name: "item" }
tables { name: "item" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "i" }
prepare {}
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "u"
         stack_table_name: "user_item" }
tables { name: "item" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "i"
         stack_table_name: "user_item" }
prepare {}
```

## Fix safety
No automatic fix: the stack's name keys its checkpoint.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `prepare_tables_for_stacking`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, prepared_groups, table_label
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import printable


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    for name, group in prepared_groups(spec):
        owners = [i for i in group if not spec.tables[i].stack_table_name]
        if not owners:
            continue
        owner = owners[0]
        for i in group:
            if spec.tables[i].stack_table_name == name and i != owner:
                yield Violation(
                    ("tables", i, "stack_table_name"),
                    f"{table_label(spec, i)} has stack_table_name `{printable(name)}`, the name "
                    f"of {table_label(spec, owner)}, which has none: prepare_tables_for_stacking "
                    f"stacks the two together as `{printable(name)}`",
                    f"name the stack apart from any table (and give {table_label(spec, owner)} "
                    "the same stack_table_name if it belongs in it)",
                )
