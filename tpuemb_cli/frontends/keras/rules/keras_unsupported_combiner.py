"""A Keras-RS table combiner that no path of the layer reduces with.

## What it does
Reports a table, looked up by some feature, whose `combiner` is not one of `"mean"`, `"sum"`
and `"sqrtn"` (`"max"`, `"min"`, a typo), whatever its placement.

## Why is this bad?
Such a model is right on no device. Where the table stays in the TensorCores' memory
(`placement="default_device"`, and `"auto"` on CPU, GPU or a TPU without SparseCores that
Keras-RS knows) the layer raises `ValueError` when it is constructed: in the training script, or
when the saved model is loaded. Where the table goes to the SparseCores (`"sparsecore"`, and
`"auto"` on v5p and v6e) nothing raises -- Keras-RS's conversion, jax-tpu-embedding's stacking and
its input preprocessing all take the string -- but jax-tpu-embedding's kernels know three
combiners only (its `RowCombiner` has three values), and its input preprocessing weighs the ids
of a `"max"` table as it does for `"sum"` (a gain of 1 an id): the model trains with a sum, not
the combiner it names, and the same model fails on CPU.

## What Keras-RS does
Measured with keras-rs 0.4.0 and jax-tpu-embedding 0.1.0 on CPU: `EmbedReduce.__init__`, which
the default-device path builds a table as, raises `ValueError("Invalid `combiner`: 'max', use one
of mean, sum, sqrtn.")`; the SparseCore path (`keras_to_jte_feature_configs`,
`auto_stack_tables`, `preprocess_sparse_dense_matmul_input`) raises nothing, and the
preprocessed gains of a `"max"` table's ids are those of a `"sum"` one (1 an id; a third for
`"mean"` of three ids a sample). With the TensorFlow backend
the SparseCore path raises as well: TensorFlow's `TableConfig` accepts mean, sum and sqrtn.

## Example
```python
keras_rs.layers.TableConfig(
    name="users", vocabulary_size=1000, embedding_dim=16, combiner="max", placement="sparsecore"
)
```

As the saved `config.json` holds it (the layer saves it on the SparseCore path):

```json
"tables": [{"name": "users", "vocabulary_size": 1000, "embedding_dim": 16,
            "combiner": "max", "placement": "sparsecore"}]
```

## Use instead
```python
keras_rs.layers.TableConfig(
    name="users", vocabulary_size=1000, embedding_dim=16, combiner="sum", placement="sparsecore"
)
```

## Fix safety
No automatic fix: tpuemb does not write `.keras` files, and which combiner was meant is the
model's choice; change the model's code.

## Options
`--keras-backend` / `keras-backend`: with TensorFlow, the SparseCore path refuses the combiner
too (TensorFlow's `TableConfig` raises `ValueError`), which the message says; the verdict is the
same on every chip and backend.

## References
- [`keras_rs/src/layers/embedding/embed_reduce.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/embed_reduce.py),
  `SUPPORTED_COMBINERS`, `EmbedReduce.__init__`
- [`keras_rs/src/layers/embedding/jax/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/config_conversion.py),
  `_keras_to_jte_table_config` (passes the combiner on unchecked)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import (
    layer_label,
    table_label,
    table_path,
    used_tables,
)
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.nearest import did_you_mean, nearest

# keras-rs 0.4.0, embed_reduce.py: SUPPORTED_COMBINERS.
COMBINERS = ("mean", "sum", "sqrtn")


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer in enumerate(model.layers):
        for t in used_tables(layer):
            table = layer.tables[t]
            if table.combiner in COMBINERS:
                continue
            close = nearest(table.combiner, list(COMBINERS))
            where = f"{table_label(layer, t)} of {layer_label(layer)}"
            cpu = "the layer refuses it with ValueError (Invalid `combiner`) when it is constructed"
            if table.placement == "default_device":
                message = f"{where} has combiner {table.combiner!r}: {cpu}"
            elif topology.backend == "tensorflow":
                message = (
                    f"{where} has combiner {table.combiner!r}: where the table stays in the "
                    f"TensorCores' memory {cpu}, and on the SparseCores TensorFlow's TableConfig "
                    "raises ValueError too"
                )
            else:
                message = (
                    f"{where} has combiner {table.combiner!r}: where the table stays in the "
                    f"TensorCores' memory (on CPU, or 'auto' without SparseCores) {cpu}; on the "
                    "SparseCores nothing raises, but jax-tpu-embedding reduces with mean, sum "
                    "or sqrtn only, and weighs this table's ids as for 'sum'"
                )
            yield Violation(
                (*table_path(li, t), "combiner"),
                message + did_you_mean(close),
                f"use {close!r}" if close else "use 'mean', 'sum' or 'sqrtn'",
            )
