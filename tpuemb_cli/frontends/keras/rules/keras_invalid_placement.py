"""A Keras-RS table placement the layer refuses when it is constructed.

## What it does
Reports a table, looked up by some feature, whose `placement` is not one of `"auto"`,
`"sparsecore"` and `"default_device"`; and, with the JAX backend on a TPU that tpuemb knows
(`--tpu`), a table placed on `"sparsecore"` when keras-rs 0.4.0's JAX layer does not take that
chip's devices for SparseCore ones (it knows device kinds "TPU v5" and "TPU v6 lite": v5p and
v6e).

What each placement changes: `"sparsecore"` puts the table on the SparseCores (its optimizer
converted by the backend: TE762, TE763); `"default_device"` keeps it in the TensorCores' memory
as a Keras `EmbedReduce` layer, trained by the model's own optimizer (the table's optimizer is
not used); `"auto"` is `"sparsecore"` where the layer finds SparseCores and `"default_device"`
elsewhere -- on CPU and GPU, and, for the JAX layer of keras-rs 0.4.0, on every TPU but v5p and
v6e (TPU7x included).

## Why is this bad?
The layer raises `ValueError` when it is constructed: in the training script, or when a saved
model is loaded.

## What Keras-RS does
`_init_feature_configs_structures` raises `ValueError("Feature '<path>' with name '<name>' has
unsupported placement '<placement>'.")` for a value outside `SUPPORTED_PLACEMENTS`; the JAX
layer's `_sparsecore_init` raises `ValueError("Not sparse cores available, cannot use explicit
sparsecore placement.")` when `_has_sparsecore` finds no "TPU v5" or "TPU v6 lite" device.

## Example
```python
keras_rs.layers.TableConfig(
    name="users", vocabulary_size=1000, embedding_dim=16, placement="sparse_core"
)
```

As an edited `config.json` holds it (the layer never saves a value it refuses):

```json
"tables": [{"name": "users", "vocabulary_size": 1000, "embedding_dim": 16,
            "placement": "sparse_core"}]
```

## Use instead
```python
keras_rs.layers.TableConfig(
    name="users", vocabulary_size=1000, embedding_dim=16, placement="sparsecore"
)
```

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--tpu` / `tpu`: the chip; `--keras-backend` / `keras-backend`: the backend.

## References
- [`keras_rs/src/layers/embedding/base_distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/base_distributed_embedding.py),
  `SUPPORTED_PLACEMENTS`, `_init_feature_configs_structures`, `_has_sparsecore`
- [`keras_rs/src/layers/embedding/jax/distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/distributed_embedding.py),
  `_sparsecore_init`
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
from tpuemb_cli.model.nearest import did_you_mean, nearest


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer in enumerate(model.layers):
        for t in used_tables(layer):
            placement = layer.tables[t].placement
            where = f"{table_label(layer, t)} of {layer_label(layer)}"
            path = (*table_path(li, t), "placement")
            why = topology.refuses(placement)
            if why == "unknown":
                close = nearest(placement, list(PLACEMENTS))
                yield Violation(
                    path,
                    f"{where} has placement {placement!r}, which the layer refuses with "
                    "ValueError (unsupported placement) when it is constructed"
                    + did_you_mean(close),
                    f"use {close!r}" if close else "use 'auto', 'sparsecore' or 'default_device'",
                )
            elif why == "no-sparsecore":
                yield Violation(
                    path,
                    f"{where} is placed on 'sparsecore', but keras-rs 0.4.0's JAX layer finds "
                    f"no SparseCores on {topology.accelerator} (it knows v5p and v6e devices "
                    "only): it raises ValueError when it is constructed",
                    "use 'auto' (the table then stays in the TensorCores' memory) or run on "
                    "v5p or v6e",
                )
