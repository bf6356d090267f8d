"""A live Keras-RS layer's tuple `table_stacking`: ignored by the layer, honoured once saved.

## What it does
With the JAX backend, reports a live `DistributedEmbedding` (linted through
`tpuemb_cli.keras.lint_keras`) whose `table_stacking` is a tuple -- `(("users", "items"),)` --
or a list whose items are tuples -- `[("users", "items")]`. A saved model's `config.json` cannot
hold a tuple: only live layers are checked.

## Why is this bad?
The layer you train and the model it saves do not agree. keras-rs 0.4.0's JAX layer stacks only
lists: a tuple is neither `None`, a string nor a list, so the layer builds with no stacking at
all (not even `"auto"`'s), while `get_config` saves the tuple, JSON writes it as lists, and the
reloaded layer stacks those tables together -- different stacked variables
(`var:<stack>:table`) from the ones the live layer trained. A list of tuples is refused outright
when the layer is built.

## What Keras-RS does
`sparsecore_build` (JAX) tests `isinstance(table_stacking, list)`: a tuple falls through every
branch and nothing is stacked, without a word; for a list it looks at its first item and raises
`ValueError("Unsupported table stacking [('users', 'items')], must be None, 'auto', or sequences
of table names to stack.")` when that is neither a list nor a string. (Checked on CPU with the
Keras oracle's simulated SparseCore: the tuple case builds one stack per table.) TensorFlow's
conversion refuses any non-`"auto"` value: TE766 reports it.

## Example
```python
keras_rs.layers.DistributedEmbedding(features, table_stacking=(("users", "items"),))
```

The model it saves holds lists, which its reloaded layer stacks:

```json
"table_stacking": [["users", "items"]]
```

## Use instead
```python
keras_rs.layers.DistributedEmbedding(features, table_stacking=[["users", "items"]])
```

## Fix safety
No automatic fix: change the model's code.

## Options
`--keras-backend` / `keras-backend`, or `lint_keras(..., backend=...)`: the backend.

## References
- [`keras_rs/src/layers/embedding/jax/distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/distributed_embedding.py),
  `sparsecore_build`
- [`keras_rs/src/layers/embedding/base_distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/base_distributed_embedding.py),
  `get_config`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import layer_label
from tpuemb_cli.model.findings import Violation


def _stacks(layer: Any) -> str:
    """The saved lists, as the reloaded layer stacks them."""
    return ", ".join(
        "[" + ", ".join(repr(t) for t in stack.tables) + "]"
        for stack in layer.table_stacking.stacks.stacks
    )


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    if topology.backend != "jax":
        return
    for li, layer in enumerate(model.layers):
        stacking = layer.table_stacking
        where = f"{layer_label(layer)}'s table_stacking"
        path = ("layers", li, "table_stacking")
        if stacking.live_tuple:
            yield Violation(
                path,
                f"{where} is a tuple: keras-rs's JAX layer stacks only lists, so the layer you "
                "train stacks no tables at all, while the model it saves holds lists "
                f"({_stacks(layer)}) and reloads stacked: their stacked variables differ",
                "pass lists: table_stacking=[[...]] (or None for no stacking)",
            )
        elif stacking.live_tuples_in_list:
            yield Violation(
                path,
                f"{where} is a list of tuples: keras-rs's JAX layer raises ValueError "
                "(unsupported table stacking) when it is built on the TPU, though the model it "
                "saves holds lists and would reload",
                "pass lists of table names: table_stacking=[[...]]",
            )
