"""A Keras-RS table's optimizer that its backend's SparseCore conversion refuses.

## What it does
Reports, for each table a `DistributedEmbedding` puts on SparseCores (placement `"sparsecore"`,
or `"auto"` on a TPU that has them), an optimizer class or option that the backend's conversion
raises `ValueError` for: each such option (the conversion raises at the first it checks).

- Both backends: `clipnorm`, `global_clipnorm`, `use_ema`, `loss_scale_factor`; any class but
  SGD, Adagrad, Adam (AdamW is one) and Ftrl (RMSprop, Adamax, Nadam, Lion, ...); SGD's
  `momentum` and `nesterov`, Adagrad's `epsilon` other than 1e-07, Adam's `amsgrad`, Ftrl's
  `l2_shrinkage_regularization_strength`.
- TensorFlow only: an optimizer given by a name other than `sgd`, `adagrad`, `adam`, `ftrl`
  (`"adamw"`, `"rmsprop"`).

The backend is `--keras-backend` (or `keras-backend` in the settings; default `jax`).

## Why is this bad?
On CPU, and on a TPU without SparseCores, placement `"auto"` resolves to `"default_device"` and
the conversion never runs (the TensorFlow layer converts for `TPUEmbedding`, the TPU embedding
engine, on v2-v4 too): the layer builds, trains and saves with these options, and every test
passes. On the TPU the layer fails while it is built, before the first step.

## What Keras-RS does
keras-rs 0.4.0's JAX `keras_to_jte_optimizer` raises `ValueError("Unsupported optimizer option
`clipnorm`.")` (and so on), or `ValueError("Unsupported optimizer type ... Optimizer must be one
of [Adagrad, Adam, Ftrl, SGD].")`; TensorFlow's `keras_to_tf_tpu_optimizer` raises
`ValueError("Unsupported optimizer option `Optimizer.clipnorm`.")`, and `to_tf_tpu_optimizer`
`ValueError("Unknown optimizer name 'adamw'. ...")` for a name it does not take.

## Example
```python
keras_rs.layers.TableConfig(
    name="users",
    vocabulary_size=1000,
    embedding_dim=16,
    optimizer=keras.optimizers.Adagrad(learning_rate=0.1, clipnorm=1.0),
)
```

As its `config.json` holds it:

```json
"optimizer": {"module": "keras.optimizers", "class_name": "Adagrad",
              "config": {"learning_rate": 0.10000000149011612, "clipnorm": 1.0}}
```

## Use instead
```python
keras_rs.layers.TableConfig(
    name="users",
    vocabulary_size=1000,
    embedding_dim=16,
    optimizer=keras.optimizers.Adagrad(learning_rate=0.1),
)
```

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`: the backend whose conversion judges the optimizer.

## References
- [`keras_rs/src/layers/embedding/jax/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/config_conversion.py),
  `keras_to_jte_optimizer`
- [`keras_rs/src/layers/embedding/tensorflow/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/tensorflow/config_conversion.py),
  `keras_to_tf_tpu_optimizer` and `to_tf_tpu_optimizer`
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

_BACKEND = {"jax": "JAX", "tensorflow": "TensorFlow"}


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer, t, table in converted_tables(model, topology):
        optimizer = table.optimizer
        actual = keras_optimizers.class_of(optimizer.class_name, optimizer.by_name)
        values = keras_optimizers.settings(actual, dict(optimizer.config))
        refused = keras_optimizers.refusals(
            topology.backend, optimizer.class_name, optimizer.by_name, values
        )
        at = (*table_path(li, t), "optimizer")
        where = f"{table_label(layer, t)} of {layer_label(layer)}"
        backend = _BACKEND.get(topology.backend, topology.backend)
        for refusal in refused:
            if refusal.option and refusal.option in optimizer.config:
                path = (*at, "config", refusal.option)
                shown = keras_optimizers.shown_option(optimizer, refusal.option, refusal.value)
                what = f"its {actual} optimizer's `{refusal.option}` ({shown})"
                fix = f"remove `{refusal.option}` (or set it to the class's default)"
            else:
                path = at
                what = f"its optimizer {optimizer.class_name!r}"
                fix = "use SGD, Adagrad, Adam or Ftrl" + (
                    " by one of the names sgd, adagrad, adam, ftrl, or as an object"
                    if topology.backend == "tensorflow"
                    else ""
                )
            yield Violation(
                path,
                f"{where} goes to {topology.engine()}, and Keras-RS's {backend} conversion "
                f"refuses "
                f'{what}: ValueError("{refusal.error}") when the layer is built on the TPU '
                "(on CPU the conversion never runs)",
                fix,
            )
