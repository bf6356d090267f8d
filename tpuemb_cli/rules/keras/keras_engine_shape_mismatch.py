"""A feature's input and output shapes that TPUEmbedding (v1) finds inconsistent at build.

## What it does
With the TensorFlow backend on a chip of TPU embedding feature V1 (v2, v3, v4), reports each
feature of a `DistributedEmbedding` layer whose table goes to the TPU embedding engine and whose
declared `input_shape` does not lead to its declared `output_shape`: another batch (an input of
32 samples declared to give 64 rows), or another rank (ids of shape `(32, 10, 1)` declared to
give `(32, 16)`).

## Why is this bad?
The layer is built only on the TPU, minutes into the job, and its build raises there. With the
JAX backend or on SparseCores nothing checks the input against the output: the declared shapes
disagree all the same, and the layer returns the shape its input gives.

## What Keras-RS does
keras-rs 0.4.0's TensorFlow layer hands `TPUEmbedding` FeatureConfigs whose `output_shape` is
the declared one without its last dimension, the batch divided by the replicas
(`translate_keras_rs_configuration` in `tensorflow/config_conversion.py`), and builds it with
the input shapes it is built with (`_sparsecore_build`). `TPUEmbedding.build` works out each
feature's output from its input -- the input itself for rank 1, the input without its last
dimension otherwise -- and raises `ValueError: Inconsistent shape founded for input feature
<name>, Output shape is set to be (16,), But got incoming output shape (8,)` when the two differ
in rank or in a dimension (`_check_output_shapes` in
[tpu_embedding_v2.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py);
an incoming shape of rank 1 or 2 under a longer declared one is let through, for ragged
sequences). tpuemb reads the inputs as the feature's `input_shape` declares them, divided among
the replicas. (Checked on CPU by `make test-tf`, which builds the real `TPUEmbedding` under a
stand-in TPUStrategy: it raises for exactly these features.) `TPUEmbeddingV2` (v5p, v6e) never
reads the input shapes.

## Example
```json
"feature_configs": {"clicks": {"name": "clicks", "table": 0, "input_shape": [32, 1],
                               "output_shape": [64, 16]}}
```

## Use instead
```json
"feature_configs": {"clicks": {"name": "clicks", "table": 0, "input_shape": [32, 1],
                               "output_shape": [32, 16]}}
```

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`: the backend; `--tpu` / `tpu`: the chip (the rule runs only
for v2, v3 and v4).

## References
- [`keras_rs/src/layers/embedding/tensorflow/distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/tensorflow/distributed_embedding.py),
  `_sparsecore_build`
- [`keras_rs/src/layers/embedding/tensorflow/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/tensorflow/config_conversion.py),
  `translate_keras_rs_configuration`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.lib.keras_layers import feature_label, feature_path, layer_label
from tpuemb_cli.spec.keras_spec import on_sparsecore


def _shown(shape: list[int]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _mismatch(incoming: list[int], declared: list[int]) -> bool:
    """TPUEmbedding's ``_check_output_shapes``: unknown dimensions (-1) match anything."""
    if len(incoming) in (1, 2) and len(declared) > len(incoming):
        return False
    if len(incoming) != len(declared):
        return True
    return any(a >= 0 and b >= 0 and a != b for a, b in zip(incoming, declared, strict=True))


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    if not topology.on_embedding_engine():
        return
    for li, layer in enumerate(model.layers):
        for f in on_sparsecore(layer, topology):
            feature = layer.features[f]
            inputs, outputs = list(feature.input_shape), list(feature.output_shape)
            if not inputs or len(outputs) < 2:  # no input declared; TE765 for the output
                continue
            incoming = inputs if len(inputs) == 1 else inputs[:-1]
            declared = outputs[:-1]
            if not _mismatch(incoming, declared):
                continue
            yield Violation(
                (*feature_path(li, f), "output_shape"),
                f"{feature_label(feature)} of {layer_label(layer)} declares input_shape "
                f"{_shown(inputs)}, which gives outputs of shape {_shown(incoming)} before the "
                f"embedding dimension, but output_shape {_shown(outputs)}, which says "
                f"{_shown(declared)}: TPUEmbedding's build raises ValueError (\"Inconsistent "
                'shape founded for input feature") when the layer is built on the TPU',
                f"make output_shape {_shown([*incoming, outputs[-1]])}, or input_shape match "
                "the ids the layer is given",
            )
