"""A Keras-RS feature whose output_shape's last dimension is not its table's embedding_dim.

## What it does
Reports a `FeatureConfig` of a `DistributedEmbedding` layer whose `output_shape` ends in a
dimension other than its table's `embedding_dim`.

## Why is this bad?
The layer returns one row of the table per sample -- `embedding_dim` values -- whatever the
feature declares. Keras builds the rest of the model from the declared shape
(`compute_output_shape` returns each feature's `output_shape`), so the model's next layers are
built for one width and get another: a Dense layer's weights do not fit, or a concatenation is
wider than planned.

## What Keras-RS does
keras-rs 0.4.0 accepts the feature: `FeatureConfig` validates nothing, and on CPU (placement
`"auto"`, resolved to `"default_device"`) the lookup is an `EmbedReduce` of the table's
`embedding_dim`, so `output_shape=(32, 8)` on a table of dimension 16 silently returns
`(32, 16)`. On SparseCores the JAX conversion passes the shape on to jax-tpu-embedding, whose
lookups are the table's width too (TE690 says what the library does; this rule reports it once,
at the Keras field).

## Example
```python
table = keras_rs.layers.TableConfig(name="users", vocabulary_size=1000, embedding_dim=16)
feature = keras_rs.layers.FeatureConfig(
    name="u", table=table, input_shape=(32, 1), output_shape=(32, 8)
)
```

As its `config.json` holds it (the tables by index, a feature pointing at one):

```json
"feature_configs": {"u": {"name": "u", "table": 0, "input_shape": [32, 1],
                          "output_shape": [32, 8]}},
"tables": [{"name": "users", "vocabulary_size": 1000, "embedding_dim": 16, "optimizer": "adam"}]
```

## Use instead
```python
feature = keras_rs.layers.FeatureConfig(
    name="u", table=table, input_shape=(32, 1), output_shape=(32, 16)
)
```

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
None.

## References
- [`keras_rs/src/layers/embedding/base_distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/base_distributed_embedding.py),
  `compute_output_shape` and `_default_device_init`
- [`keras_rs/src/layers/embedding/distributed_embedding_config.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/distributed_embedding_config.py),
  `FeatureConfig`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.lib.keras_layers import feature_label, feature_path, layer_label, table_label


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer in enumerate(model.layers):
        for f, feature in enumerate(layer.features):
            # (A shape without a batch and an embedding dimension is TE765's.)
            if len(feature.output_shape) < 2 or not 0 <= feature.table < len(layer.tables):
                continue
            declared = feature.output_shape[-1]
            dim = layer.tables[feature.table].embedding_dim
            if declared == dim or declared < 0:
                continue
            returned = [*feature.output_shape[:-1], dim]
            shown = "(" + ", ".join("None" if d < 0 else str(d) for d in returned) + ")"
            yield Violation(
                (*feature_path(li, f), "output_shape", len(feature.output_shape) - 1),
                f"{feature_label(feature)} of {layer_label(layer)} declares an output of "
                f"{declared} values a sample, but {table_label(layer, feature.table)} has "
                f"embedding_dim {dim}: the layer returns {shown} while Keras builds the next "
                "layers for the declared shape",
                f"make output_shape's last dimension {dim} (the table's embedding_dim)",
            )
