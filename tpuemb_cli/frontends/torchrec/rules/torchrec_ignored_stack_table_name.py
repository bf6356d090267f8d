"""A TorchRec table's `stack_table_name` that an earlier stacking call made moot.

## What it does
Reports a table whose `stack_table_name` is not the name of the stack it ends up in, because an
earlier call -- `stack_tables`, `auto_stack_tables`, or the fused collection's own
`auto_stack=True` -- had already put it in another stack.

## Why is this bad?
`stack_table_name` is read only for tables in no stack yet. A table an earlier call stacked
keeps that stack, and the name the user gave it is ignored without a word: the tables meant to
share a stack end up in different ones (or with tables they were not meant to share it with),
under other names than the checkpoints expect.

## What TorchRec does
`prepare_tables_for_stacking` groups by `stack_table_name` only the tables whose
`stacked_config` is still None; `auto_stack_tables` (and the collection's `auto_stack`, which
calls it before `prepare_tables_for_stacking`) stacks every table not stacked yet, ignoring
`stack_table_name`. On CPU, tables `a` and `b` of `stack_table_name="s"` and a table `c`, after
`auto_stack_tables`, were all in one stack, `a_b_c`; after `stack_tables(tables, ["a", "c"])`,
`a` was in `a_c` and `b` alone in `s`.

## Example
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fa"
         stack_table_name: "s" }
tables { name: "b" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fb"
         stack_table_name: "s" }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8 auto_stack: true
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Use instead
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fa"
         stack_table_name: "s" }
tables { name: "b" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fb"
         stack_table_name: "s" }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Fix safety
No automatic fix: whether the earlier call or the name should decide is the user's choice.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `prepare_tables_for_stacking`, `auto_stack_tables`
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_SparseCoreFusedEmbeddingBase.__init__`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.frontends.torchrec.rules.lib.origins import made_by
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    if facts.stacking.refusal is not None:
        return  # the library stopped before every table had its stack
    for index, table in enumerate(spec.tables):
        wanted = table.stack_table_name
        stack = facts.stacking.stack_of[index]
        if not wanted or stack is None or stack.name == wanted:
            continue
        # prepare_tables_for_stacking names every stack it makes by its tables'
        # stack_table_name: a stack of another name was made before it.
        by = made_by(spec, stack)
        if stack.call_index >= 0 and spec.stack_calls[stack.call_index].call != "auto_stack_tables":
            fix = (
                f'drop stack_table_name "{wanted}", or name that stack_tables call\'s stack '
                f'"{wanted}"'
            )
        else:
            fix = (
                f'drop stack_table_name "{wanted}", or stack the tables of "{wanted}" with '
                "stack_tables before the automatic stacking"
            )
        yield Violation(
            ("tables", index, "stack_table_name"),
            f'{table_label(spec, index)} has stack_table_name "{wanted}", but {by} already '
            f"put it in stack `{stack.name}`: prepare_tables_for_stacking only groups tables in "
            "no stack yet, so the name is ignored without a word",
            fix,
        )
