"""A Keras-RS table's optimizer option that the JAX backend's SparseCore conversion drops.

## What it does
Reports, for each table a `DistributedEmbedding` puts on SparseCores with the JAX backend, an
optimizer option the conversion to jax-tpu-embedding does not carry: `weight_decay` (AdamW's
too, which becomes plain Adam), `clipvalue` and `gradient_accumulation_steps`; not at a value
with which Keras trains as without the option (a `weight_decay` of 0, a `clipvalue` not above
0, `gradient_accumulation_steps` 0), as dropping it changes nothing. Values are shown as the
config wrote them.

## Why is this bad?
The model trains on the TPU without the regularisation, the clipping or the accumulation it was
written (and tested on CPU) with, and nothing says so: the table's updates are not the ones
the code asks for.

## What Keras-RS does
keras-rs 0.4.0's JAX `keras_to_jte_optimizer` builds jax-tpu-embedding's `SGDOptimizerSpec`,
`AdagradOptimizerSpec`, `AdamOptimizerSpec` or `FTRLOptimizerSpec` from the learning rate and
the class's own hyperparameters only; AdamW passes its `isinstance(optimizer,
keras.optimizers.Adam)` test and becomes an `AdamOptimizerSpec`. The TensorFlow backend passes
these options on (`weight_decay_factor`, `clipvalue`, `use_gradient_accumulation`), and its
SparseCore rules judge them there.

## Example
```python
keras_rs.layers.TableConfig(
    name="items",
    vocabulary_size=500,
    embedding_dim=8,
    optimizer=keras.optimizers.AdamW(learning_rate=0.001, weight_decay=0.004),
)
```

As its `config.json` holds it:

```json
"optimizer": {"module": "keras.optimizers", "class_name": "AdamW",
              "config": {"learning_rate": 0.0010000000474974513, "weight_decay": 0.004}}
```

## Use instead
```python
keras_rs.layers.TableConfig(
    name="items",
    vocabulary_size=500,
    embedding_dim=8,
    optimizer=keras.optimizers.Adam(learning_rate=0.001),
)
```

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`: only the JAX backend drops them.

## References
- [`keras_rs/src/layers/embedding/jax/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/config_conversion.py),
  `keras_to_jte_optimizer`
- [`keras/src/optimizers/base_optimizer.py`](https://github.com/keras-team/keras/blob/v3.15.1/keras/src/optimizers/base_optimizer.py),
  `_apply_weight_decay`, `_clip_gradients` and `_backend_apply_gradients`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.model import optimizers as keras_optimizers
from tpuemb_cli.frontends.keras.rules.lib.layers import (
    converted_tables,
    layer_label,
    table_label,
    table_path,
)
from tpuemb_cli.model.findings import Violation


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer, t, table in converted_tables(model, topology):
        optimizer = table.optimizer
        actual = keras_optimizers.class_of(optimizer.class_name, optimizer.by_name)
        values = keras_optimizers.settings(actual, dict(optimizer.config))
        for dropped in keras_optimizers.dropped(
            topology.backend, optimizer.class_name, optimizer.by_name, values
        ):
            at = (*table_path(li, t), "optimizer")
            path = (*at, "config", dropped.option) if dropped.option in optimizer.config else at
            adam = actual == "AdamW" and dropped.option == "weight_decay"
            shown = keras_optimizers.shown_option(optimizer, dropped.option, dropped.value)
            yield Violation(
                path,
                f"{table_label(layer, t)} of {layer_label(layer)} goes to the SparseCores, and "
                f"Keras-RS's JAX conversion drops its {actual} optimizer's `{dropped.option}` "
                f"({shown}) without a word: {dropped.why}",
                f"remove `{dropped.option}`"
                + (" and use Adam" if adam else "")
                + ": the SparseCores train the table without it",
            )
