"""A Keras-RS table optimizer that is never used: the table stays on the TensorCores.

## What it does
Reports each table looked up by some feature that stays in the TensorCores' memory -- placed on
`"default_device"`, or `"auto"` on a TPU where the layer finds no SparseCores (known from
`--tpu`; with the JAX backend of keras-rs 0.4.0 that is every chip but v5p and v6e) -- and that
has an optimizer other than `TableConfig`'s default (`"adam"`).

## Why is this bad?
The optimizer looks like it trains the table; it does not. Keras-RS reads a table's optimizer
only in its SparseCore conversions. A table on the default device is a plain Keras
`EmbedReduce` layer whose weights are trainable variables of the model, updated by the
optimizer given to `model.compile()` -- its learning rate, its clipping, its schedule. The
table's own settings, tuned or not, change nothing.

## What Keras-RS does
`_default_device_init` builds an `EmbedReduce(name, input_dim, output_dim,
embeddings_initializer, combiner)` per table and never reads `table.optimizer`; only
`keras_to_jte_optimizer` (JAX) and `to_tf_tpu_optimizer` (TensorFlow) do, for the tables placed
on the SparseCores.

## Example
```python
keras_rs.layers.TableConfig(
    name="country",
    vocabulary_size=300,
    embedding_dim=8,
    optimizer=keras.optimizers.SGD(learning_rate=0.5),
    placement="default_device",
)
```

As its saved `config.json` holds it:

```json
"tables": [{"name": "country", "vocabulary_size": 300, "embedding_dim": 8,
            "optimizer": {"class_name": "SGD", "config": {"learning_rate": 0.5}},
            "placement": "default_device"}]
```

## Use instead
Drop the table's optimizer (and set what the table needs on the model's optimizer), or place the
table on the SparseCores, where its own optimizer applies.

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--tpu` / `tpu`: the chip, which decides where `"auto"` goes; `--keras-backend` /
`keras-backend`: the backend.

## References
- [`keras_rs/src/layers/embedding/base_distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/base_distributed_embedding.py),
  `_default_device_init`
- [`keras_rs/src/layers/embedding/jax/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/config_conversion.py),
  `keras_to_jte_optimizer`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import (
    layer_label,
    table_label,
    table_path,
    used_tables,
)
from tpuemb_cli.frontends.keras.spec.conversion import PLACEMENTS
from tpuemb_cli.model.findings import Violation


def _is_default(optimizer: Any) -> bool:
    return not optimizer.class_name or (optimizer.by_name and optimizer.class_name == "adam")


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer in enumerate(model.layers):
        for t in used_tables(layer):
            table = layer.tables[t]
            if table.placement not in PLACEMENTS or topology.sparsecore_placement(table.placement):
                continue
            if _is_default(table.optimizer):
                continue
            where = (
                "is placed on 'default_device'"
                if table.placement == "default_device"
                else f"is placed 'auto', which is the TensorCores on {topology.accelerator}"
            )
            yield Violation(
                (*table_path(li, t), "optimizer"),
                f"{table_label(layer, t)} of {layer_label(layer)} {where}: Keras-RS keeps it "
                "as an EmbedReduce layer trained by the model's optimizer (model.compile), and "
                f"never uses the table's own ({table.optimizer.class_name})",
                "drop the table's optimizer and tune the model's, or place the table on the "
                "SparseCores",
            )
