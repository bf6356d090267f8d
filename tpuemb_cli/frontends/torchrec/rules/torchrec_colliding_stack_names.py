"""Two different TorchRec stacks of one name.

## What it does
Reports a stack that has the name of another, different stack: two `stack_tables` calls given
one `stack_table_name`, a table's `stack_table_name` (or, for a table in no group, its own name)
equal to the name of a stack an earlier call made, an automatic stack's joined name equal to an
explicit one.

## Why is this bad?
TorchRec keeps stacks by name. The stack it keeps is the one of the first table in the tables'
order; the other is dropped without a word, and its tables with it: they get no weight, their
features are never looked up, and they are left out of the checkpoints.

## What TorchRec does
`prepare_tables_for_stacking` (which the fused collections call) lists every table's stack,
skipping a name it has seen: the later stack of a name is not in the collection's
`stacked_configs`. The collection builds weights, learning rates and optimizer state for those
only; `get_unstacked_table_weights` / `unstacked_state_dict` leave the dropped stack's tables out,
`load_unstacked_state_dict` ignores their weights, and `serialize_stacked_configs` (the
checkpoint planners') keeps one stack a name. On CPU, with `stack_tables(tables, ["a", "b"],
stack_table_name="x")` and a table `c` of `stack_table_name="x"`, the collection had one weight,
`x` of `a` and `b`; `c_f` was not among its features, and `embedding_bag_configs()` still listed
`c`. (A table whose own name is another table's `stack_table_name` is no collision: the two are
grouped into one stack.)

## Example
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fa" }
tables { name: "b" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fb" }
tables { name: "c" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fc"
         stack_table_name: "x" }
stack_calls { call: "stack_tables" tables: "a" tables: "b" name: "x" }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Use instead
```pbtxt
tables { name: "a" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fa" }
tables { name: "b" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fb" }
tables { name: "c" kind: "bag" num_embeddings: 64 embedding_dim: 8 feature_names: "fc"
         stack_table_name: "y" }
stack_calls { call: "stack_tables" tables: "a" tables: "b" name: "x" }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Fix safety
No automatic fix: which name to change is the user's choice (checkpoints are keyed by it).

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/table_stacking.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/table_stacking.py),
  `prepare_tables_for_stacking`, `stack_tables`
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_SparseCoreFusedEmbeddingBase.__init__`, `get_unstacked_table_weights`
- [`torchrec/experimental/torch_tpu/checkpoint/utils.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/checkpoint/utils.py),
  `serialize_stacked_configs`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.frontends.torchrec.rules.lib.origins import made_at, made_by, table_names
from tpuemb_cli.frontends.torchrec.spec.stacking import Stack
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    kept = {stack.name: stack for stack in facts.stacking.stacks}
    for lost in facts.stacking.shadowed:
        winner = kept.get(lost.name)
        if winner is None:
            continue
        one = len(lost.tables) == 1
        tables, get, its, them = (
            ("table", "gets", "its", "it") if one else ("tables", "get", "their", "them")
        )
        yield Violation(
            made_at(spec, lost),
            f"two stacks are named `{lost.name}`: the one of {table_names(winner)} (made by "
            f"{made_by(spec, winner)}) and the one of {table_names(lost)} (made by "
            f"{made_by(spec, lost)}); prepare_tables_for_stacking keeps the first and drops the "
            f"other without a word, so {tables} {table_names(lost)} {get} no weight, {its} "
            f"features are never looked up and checkpoints leave {them} out",
            _fix(spec, winner, lost),
        )


def _fix(spec: Any, winner: Stack, lost: Stack) -> str:
    """Rename the stack whose name the user wrote: an automatic stack's is its tables' names."""
    automatic = lost.call_index < 0 and made_at(spec, lost) == ("collection", "auto_stack")
    if lost.call_index >= 0 and spec.stack_calls[lost.call_index].call == "auto_stack_tables":
        automatic = True
    if automatic:
        return (
            f"give the stack of {table_names(winner)} another name (an automatic stack is named "
            "after its tables)"
        )
    return f"give the stack of {table_names(lost)} a name of its own"
