"""A Keras-RS table placed `"auto"` that lands on the TensorCores of a TPU with SparseCores.

## What it does
With the JAX backend on a TPU that tpuemb knows (`--tpu`, or `accelerator=` for live layers),
reports each table looked up by some feature whose `placement` is `"auto"` when the chip has
SparseCores but keras-rs 0.4.0's JAX layer does not take its devices for SparseCore ones: it
knows device kinds "TPU v5" and "TPU v6 lite" (v5p and v6e) only, so on TPU7x every `"auto"`
table stays on the TensorCores.

## Why is this bad?
`"auto"` reads as "on the SparseCores where there are some", and the chip has them; the layer
quietly puts the table in the TensorCores' memory instead, as a Keras `EmbedReduce` layer: no
sharding across SparseCores, no table stacking, the table's own optimizer unused (the model's
trains it), and large tables may not fit. Nothing fails; the model just does not run the way
the configuration suggests.

## What Keras-RS does
`_init_feature_configs_structures` resolves `"auto"` with `_has_sparsecore()`, which is true
only when the first TPU device's `device_kind` is "TPU v5" or "TPU v6 lite"; otherwise the
table goes to `"default_device"`. Placing it on `"sparsecore"` explicitly raises instead
(TE764). (Checked on CPU by the Keras oracle: with `jax.devices("tpu")` reporting "TPU7x",
"TPU v5 lite" or "TPU v4" devices the layer puts every `"auto"` table on `"default_device"`;
with "TPU v5" or "TPU v6 lite", on `"sparsecore"`.)

## Example
A table with the default placement, linted for TPU7x:

```python
keras_rs.layers.TableConfig(name="users", vocabulary_size=10_000_000, embedding_dim=64)
```

As its saved `config.json` holds it:

```json
"tables": [{"name": "users", "vocabulary_size": 10000000, "embedding_dim": 64,
            "placement": "auto"}]
```

## Use instead
Say where you mean it to be: `placement="default_device"` when the TensorCores are intended,
or run on v5p or v6e (or a keras-rs that knows the chip) for the SparseCores.

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--tpu` / `tpu`: the chip; `--keras-backend` / `keras-backend`: the backend.

## References
- [`keras_rs/src/layers/embedding/base_distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/base_distributed_embedding.py),
  `_init_feature_configs_structures`, `_has_sparsecore`
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


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    if topology.backend != "jax" or topology.num_sc_per_device < 1:
        return
    if not topology.accelerator or topology.auto_on_sparsecore():
        return
    for li, layer in enumerate(model.layers):
        for t in used_tables(layer):
            if layer.tables[t].placement != "auto":
                continue
            yield Violation(
                (*table_path(li, t), "placement"),
                f"{table_label(layer, t)} of {layer_label(layer)} is placed 'auto', and "
                f"{topology.accelerator} has {topology.num_sc_per_device} SparseCores per "
                "device, but keras-rs 0.4.0's JAX layer takes only v5p and v6e devices for "
                "SparseCore ones: the table stays in the TensorCores' memory (not sharded over "
                "SparseCores, not stacked, trained by the model's optimizer)",
                "say placement='default_device' if the TensorCores are meant; for the "
                "SparseCores, run on v5p or v6e",
            )
