"""One TorchRec feature name in two tables, or twice in one.

## What it does
Reports a feature name that a table lists again: one already listed by an earlier table, or
earlier in the same table's `feature_names`.

## Why is this bad?
The fused collections key their output by feature name. A feature in two tables is looked up in
both, and the output holds it twice (the bag collection's `KeyedTensor`) or once, the last table's
(the sequence collection's dict): what the model reads under that name is another table's
embedding, or a `KeyedTensor` that cannot be split.

## What TorchRec does
Nothing checks the names. `_SparseCoreFusedEmbeddingBase.__init__` maps each feature to its table
and its stack (`_feature_to_table_config`, `_feature_to_stack_config`), going through the stacks
in order: the last table listing the name wins (only the first map is read again, by the bag
collection's `unstack_activations`). On CPU:
- `SparseCoreFusedEmbeddingBagCollection.forward` returns a `KeyedTensor` with the name twice
  and both lengths taken from the last table's `embedding_dim`: for tables of 8 and 16 columns,
  `length_per_key()` is `[16, 16]` over 24 columns, and `to_dict()` raises `RuntimeError:
  split_with_sizes expects split_sizes to sum exactly to 24 (input tensor's size at dimension
  1), but got split_sizes=[16, 16]`; for equal ones, `to_dict()` keeps the last table's only.
- `SparseCoreFusedEmbeddingCollection.forward` returns one `JaggedTensor` under the name, the
  last table's; `stack_gradients` gives that feature's one gradient to both tables.

## Example
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 8 feature_names: "uid" }
tables { name: "user_hash" kind: "bag" num_embeddings: 1000 embedding_dim: 16
         feature_names: "uid" }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Use instead
```pbtxt
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 8 feature_names: "uid" }
tables { name: "user_hash" kind: "bag" num_embeddings: 1000 embedding_dim: 16
         feature_names: "uid_hash" }
collection { type: "SparseCoreFusedEmbeddingBagCollection" batch_size: 8
             optimizer { type: "SGD" kwargs { key: "lr" value: 0.01 } } }
```

## Fix safety
No automatic fix: the feature names are the input pipeline's.

## Options
None.

## References
- [`torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py`](https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu/modules/fused_embedding_modules.py),
  `_SparseCoreFusedEmbeddingBase.__init__`,
  `SparseCoreFusedEmbeddingBagCollection.unstack_activations`,
  `SparseCoreFusedEmbeddingCollection.unstack_activations`, `stack_gradients`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts, table_label
from tpuemb_cli.frontends.torchrec.spec.stacking import SEQUENCE_COLLECTION
from tpuemb_cli.model.findings import Violation


def check_torchrec(spec: Any, facts: Facts) -> Iterator[Violation]:
    if facts.stacking.refusal is not None:
        return  # the library stops before any collection reads a feature
    sequences = spec.HasField("collection") and spec.collection.type == SEQUENCE_COLLECTION
    first: dict[str, int] = {}
    for index, table in enumerate(spec.tables):
        for position, feature in enumerate(table.feature_names):
            earlier = first.setdefault(feature, index)
            if earlier == index and list(table.feature_names).index(feature) == position:
                continue
            if earlier != index and spec.tables[earlier].name == table.name:
                continue  # two tables of one name: torchrec-duplicate-table-name's
            if earlier == index:
                where = f"twice in {table_label(spec, index)}"
                happens = (
                    "the collection looks it up twice and its output keeps one of the two"
                    if sequences
                    else "the collection looks it up twice and returns a KeyedTensor with "
                    f"`{feature}` twice (to_dict() keeps one)"
                )
            else:
                where = f"in {table_label(spec, earlier)} and again in {table_label(spec, index)}"
                happens = _two_tables(
                    spec, earlier, _last(spec, facts, feature, index), feature, sequences
                )
            yield Violation(
                ("tables", index, "feature_names", position),
                f"feature `{feature}` is {where}: {happens}",
                f"give each table's feature a name of its own (rename `{feature}` here)",
            )


def _last(spec: Any, facts: Facts, feature: str, default: int) -> int:
    """The table the collection maps ``feature`` to: the last listing it, in the order of the
    stacks (the spec's order when there are none)."""
    order = [place.table for stack in facts.stacking.stacks for place in stack.tables]
    holders = [
        i for i in order or range(len(spec.tables)) if feature in spec.tables[i].feature_names
    ]
    return holders[-1] if holders else default


def _two_tables(spec: Any, earlier: int, later: int, feature: str, sequences: bool) -> str:
    last = spec.tables[later]
    if later == earlier:
        earlier = next(
            i for i, t in enumerate(spec.tables) if feature in t.feature_names and i != later
        )
    if sequences:
        return (
            f"the collection's output holds `{feature}` once, from `{last.name}` only, and "
            f"stack_gradients gives its one gradient to both tables"
        )
    dims = (spec.tables[earlier].embedding_dim, last.embedding_dim)
    if dims[0] != dims[1]:
        return (
            f"the collection returns a KeyedTensor with `{feature}` twice, both of "
            f"`{last.name}`'s {dims[1]} columns although `{spec.tables[earlier].name}`'s has "
            f"{dims[0]}, and its to_dict() raises RuntimeError (split_with_sizes)"
        )
    return (
        f"the collection returns a KeyedTensor with `{feature}` twice, and its to_dict() keeps "
        f"only `{last.name}`'s"
    )
