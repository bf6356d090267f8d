"""A Keras-RS layer's `table_stacking` that its JAX layer takes for no stacking at all.

## What it does
With the JAX backend, reports a `DistributedEmbedding` whose `table_stacking` is neither `None`,
a string nor a non-empty list -- an object (`{"group": ["users", "items"]}`), a number, a
boolean, or an empty list -- when some of its tables go to the SparseCores.

## Why is this bad?
The layer builds and trains without a word, but stacks none of its tables: not the ones the
value seems to name, and not `"auto"`'s stacks either (the default, which the value replaced).
Each table is a stack of its own, with its own lookups, buffers and padding, which is what
`None` says plainly.

## What Keras-RS does
keras-rs 0.4.0's JAX `sparsecore_build` stacks for a string (`"auto"`; another raises) and for
a list whose first item is a list or a string; for anything else no branch is taken and it goes
on to `prepare_feature_specs_for_training` with every table unstacked. `get_config` saves the
value as it was given, so the reloaded model stacks nothing too. (Checked on CPU with the Keras
oracle's simulated SparseCore: an object, a number, a boolean and an empty list each build
one stack a table.)
TensorFlow's conversion refuses such a value: rule `keras-unsupported-table-stacking` reports it.

## Example
```json
"table_stacking": {"group": ["users", "items"]}
```

## Use instead
```json
"table_stacking": [["users", "items"]]
```

or `null` when no stacking is meant, or leave it out for `"auto"`.

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`: the backend.

## References
- [`keras_rs/src/layers/embedding/jax/distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/distributed_embedding.py),
  `sparsecore_build`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import layer_label
from tpuemb_cli.frontends.keras.spec.conversion import on_sparsecore
from tpuemb_cli.model.findings import Violation


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    if topology.backend != "jax":
        return
    for li, layer in enumerate(model.layers):
        stacking = layer.table_stacking
        if stacking.WhichOneof("kind") != "ignored" or not on_sparsecore(layer, topology):
            continue
        yield Violation(
            ("layers", li, "table_stacking"),
            f"{layer_label(layer)}'s table_stacking is {stacking.ignored}: keras-rs's JAX layer "
            "stacks only for None, a string or a non-empty list, so it stacks none of the "
            "tables (not even 'auto''s stacks), without a word",
            "list the tables to stack ([['a', 'b']]), leave table_stacking out for 'auto', or "
            "say None for no stacking",
        )
