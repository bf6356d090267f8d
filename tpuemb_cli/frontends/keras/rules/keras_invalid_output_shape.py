"""A Keras-RS feature's output_shape that the TensorFlow backend's conversion refuses.

## What it does
With the TensorFlow backend (`--keras-backend tensorflow`), reports a feature on SparseCores
whose `output_shape` has fewer than 2 dimensions, or whose first dimension -- the *global*
batch -- is not a multiple of the replicas (the TPU's devices, from `--tpu`).

## Why is this bad?
Keras-RS divides the global batch by the replicas to give `TPUEmbeddingV2` its per-replica
output shape; a batch written per replica (a common mix-up: the first dimension is the global
batch) or one the replicas do not divide fails when the layer is built on the TPU, after the
model built and trained on CPU.

## What Keras-RS does
keras-rs 0.4.0's `keras_to_tf_tpu_feature_config` raises `ValueError("Invalid `output_shape`
... It must have at least 2 dimensions: a batch dimension and an embedding dimension.")`, or
`ValueError("Invalid `output_shape` ... Batch size 100 is not a multiple of the number of TPUs
8.")`. (With the JAX backend, TE691 reports a batch the devices' SparseCores do not divide.)

## Example
A feature for 8 replicas (`--tpu v5p-16`), as its `config.json` holds it:

```json
"feature_configs": {"u": {"name": "u", "table": 0, "input_shape": [100, 1],
                          "output_shape": [100, 16]}}
```

## Use instead
```json
"feature_configs": {"u": {"name": "u", "table": 0, "input_shape": [128, 1],
                          "output_shape": [128, 16]}}
```

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`, and `--tpu` / `tpu` for the replicas.

## References
- [`keras_rs/src/layers/embedding/tensorflow/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/tensorflow/config_conversion.py),
  `keras_to_tf_tpu_feature_config`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import feature_label, feature_path, layer_label
from tpuemb_cli.frontends.keras.spec.conversion import on_sparsecore
from tpuemb_cli.model.findings import Violation


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    if topology.backend != "tensorflow":
        return
    replicas = topology.global_device_count
    for li, layer in enumerate(model.layers):
        for f in on_sparsecore(layer, topology):
            feature = layer.features[f]
            shape = list(feature.output_shape)
            where = f"{feature_label(feature)} of {layer_label(layer)}"
            if len(shape) < 2:
                yield Violation(
                    (*feature_path(li, f), "output_shape"),
                    f"{where} has output_shape {shape}: Keras-RS's TensorFlow conversion wants "
                    "a batch dimension and an embedding dimension, and raises ValueError when "
                    "the layer is built on the TPU",
                    "give output_shape as (global batch, embedding_dim)",
                )
                continue
            batch = shape[0]
            if replicas < 1 or batch < 0 or batch % replicas == 0:
                continue
            below, above = batch - batch % replicas, batch - batch % replicas + replicas
            yield Violation(
                (*feature_path(li, f), "output_shape", 0),
                f"{where} has a global batch of {batch}, which {replicas} replicas do not "
                "divide: Keras-RS's TensorFlow conversion raises ValueError when the layer is "
                "built on the TPU (the first dimension is the global batch, not the "
                "per-replica one)",
                f"make the global batch a multiple of {replicas} (e.g. "
                + (f"{below} or {above})" if below else f"{above})"),
            )
