"""A Keras-RS feature whose output_shape is not the shape its layer returns.

## What it does
Reports a `FeatureConfig` of a `DistributedEmbedding` layer whose `output_shape` differs, in any
dimension, from the shape the layer returns for the feature's `input_shape`: the input's shape
with its last dimension (the ids of a sample, which the table's combiner reduces) replaced by the
table's `embedding_dim` -- `(32, 1)` and `(32, 10)` give `(32, 16)` on a table of dimension 16,
`(32, 10, 1)` gives `(32, 10, 16)`, and a rank-1 input `(32,)` gives `(32, 16)`. An unknown
dimension (`None`) on either side matches any. (A declared shape of rank 1 on TensorFlow's
SparseCores is TE765's.)

## Why is this bad?
The layer returns one reduced row of the table per sample, whatever the feature declares. Keras
builds the rest of the model from the declared shape (`compute_output_shape` returns each
feature's `output_shape`), so the model's next layers are built for one shape and get another: a
Dense layer's weights do not fit, a concatenation is wider than planned, or a batch of 64 is
planned where 32 rows arrive.

## What Keras-RS does
keras-rs 0.4.0 accepts the feature: `FeatureConfig` validates nothing. On CPU (placement
`"auto"`, resolved to `"default_device"`, with either backend) the lookup is an `EmbedReduce` of
the table's `embedding_dim`, which reduces the last input dimension (a rank-1 input is not
reduced): declared `(64, 16)` for an input `(32, 1)` returns `(32, 16)`, declared
`(32, 10, 16)` for an input `(32, 10)` returns `(32, 16)`, declared `(32, 16)` for an input
`(32, 10, 1)` returns `(32, 10, 16)`, and declared `(32, 8)` on a table of dimension 16 returns
`(32, 16)`. On SparseCores the JAX conversion passes the declared shape on to
jax-tpu-embedding, which counts the feature's samples from it (the product of all but its last
dimension) while the input gives one sample a row, and cuts each feature's activations to a
two-dimensional slice of the declared batch and width (TE690 says what the library does with a
width; this rule reports it once, at the Keras field). With the TensorFlow backend the conversion
gives TensorFlow the declared shape without its last dimension, the batch per replica; where
Keras-RS builds TensorFlow's `TPUEmbedding`, its `_get_and_update_output_shapes_from_input`
drops an input's last dimension the same way (a rank-1 input keeps its shape) and raises
`ValueError("Inconsistent shape founded for input feature ...")` where the two differ (a worked-out
shape of rank 1 or 2 under a longer declared one is let through, for ragged sequences). Where
the build goes through, and always with `TPUEmbeddingV2`, the activations are sized from the
declared shape: tracing the layer's call (the ops' own shape functions) gives the declared batch
and rank with the table's width, and the message says so. (What neither says: `TPUEmbedding`'s
enqueue refuses dense ids of rank 2 with more than one id a sample -- "Rank 2 or above dense
tensor should have last dimension as 1" -- where ragged or sparse ids of that shape pass; a saved
model does not say which the layer is given, so tpuemb reports nothing of it.)
(Both checked by `make test-tf`, which builds the real objects under a stand-in TPUStrategy and
traces the call.)

## Example
```python
table = keras_rs.layers.TableConfig(name="users", vocabulary_size=1000, embedding_dim=16)
feature = keras_rs.layers.FeatureConfig(
    name="u", table=table, input_shape=(32, 1), output_shape=(64, 16)
)
```

As its `config.json` holds it (the tables by index, a feature pointing at one):

```json
"feature_configs": {"u": {"name": "u", "table": 0, "input_shape": [32, 1],
                          "output_shape": [64, 16]}},
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
  `compute_output_shape`, `_default_device_init` and `_default_device_call`
- [`keras_rs/src/layers/embedding/embed_reduce.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/embed_reduce.py),
  `EmbedReduce.call` and `EmbedReduce.compute_output_shape`
- [`keras_rs/src/layers/embedding/distributed_embedding_config.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/distributed_embedding_config.py),
  `FeatureConfig`
- [`keras_rs/src/layers/embedding/jax/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/config_conversion.py),
  `_keras_to_jte_feature_config`
- [`keras_rs/src/layers/embedding/tensorflow/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/tensorflow/config_conversion.py),
  `keras_to_tf_tpu_feature_config`
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `_get_and_update_output_shapes_from_input`
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `_get_activation_for_feature`
"""

from collections.abc import Iterator, Sequence
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import (
    feature_label,
    feature_path,
    layer_label,
    table_label,
)
from tpuemb_cli.frontends.keras.spec.conversion import on_sparsecore
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.paths import FieldPath


def returned_shape(input_shape: Sequence[int], embedding_dim: int) -> list[int]:
    """The shape the layer returns for ids of ``input_shape`` (-1: unknown): `EmbedReduce`
    reduces the last input dimension, but a rank-1 input's, into one row of the table."""
    kept = list(input_shape) if len(input_shape) == 1 else list(input_shape[:-1])
    return [*kept, embedding_dim]


def shown(shape: Sequence[int]) -> str:
    dims = ["None" if d < 0 else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _differing(declared: Sequence[int], returned: Sequence[int]) -> list[int]:
    """The positions where the shapes differ, an unknown dimension matching any; all of them
    when the ranks differ."""
    if len(declared) != len(returned):
        return list(range(len(declared)))
    return [
        i
        for i, (d, r) in enumerate(zip(declared, returned, strict=True))
        if d >= 0 and r >= 0 and d != r
    ]


def _engine_refuses(input_shape: Sequence[int], declared: Sequence[int]) -> bool:
    """Whether TPUEmbedding's build (v1) raises for ids of ``input_shape``
    (``_check_output_shapes``): the output it works out of the input (the input without its
    last dimension, a rank-1 input itself) against the declared one without its width; an
    unknown dimension matches any, and a worked-out shape of rank 1 or 2 under a longer
    declared one is let through (ragged sequences)."""
    if not input_shape:
        return False
    incoming = list(input_shape) if len(input_shape) == 1 else list(input_shape[:-1])
    expected = list(declared[:-1])
    if len(incoming) in (1, 2) and len(expected) > len(incoming):
        return False
    if len(incoming) != len(expected):
        return True
    return any(a >= 0 and b >= 0 and a != b for a, b in zip(incoming, expected, strict=True))


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer in enumerate(model.layers):
        # The features on the TensorFlow backend's TPU path: a shape there without a batch and
        # an embedding dimension is TE765's (the conversion raises), and the messages say what
        # the TPU embedding does with the others; elsewhere the layer returns its own shape.
        on_tpu = set(on_sparsecore(layer, topology)) if topology.backend == "tensorflow" else ()
        for f, feature in enumerate(layer.features):
            if not feature.output_shape or not 0 <= feature.table < len(layer.tables):
                continue
            if len(feature.output_shape) < 2 and f in on_tpu:
                continue
            declared = list(feature.output_shape)
            dim = layer.tables[feature.table].embedding_dim
            if dim < 1:  # a size below 1, or one past int64 (read as 0): other rules' findings
                continue
            if feature.input_shape:
                returned = returned_shape(feature.input_shape, dim)
            else:
                # No input shape written (Keras-RS requires one): only the width is known.
                returned = [*declared[:-1], dim]
            differing = _differing(declared, returned)
            if not differing:
                continue
            where = f"{feature_label(feature)} of {layer_label(layer)}"
            path: FieldPath = (*feature_path(li, f), "output_shape")
            same_rank = len(declared) == len(returned)
            # On v2-v4 TPUEmbedding's build compares the input with the declared output.
            raises = (
                f in on_tpu
                and topology.on_embedding_engine()
                and _engine_refuses(feature.input_shape, declared)
            )
            if len(differing) == 1 and same_rank:
                path = (*path, differing[0])
            if differing == [len(declared) - 1] and same_rank:
                message = (
                    f"{where} declares an output of {declared[-1]} values a sample, but "
                    f"{table_label(layer, feature.table)} has embedding_dim {dim}: the layer "
                    f"returns {shown(returned)} while Keras builds the next layers for the "
                    "declared shape"
                )
                fix = f"make output_shape's last dimension {dim} (the table's embedding_dim)"
            elif f in on_tpu and topology.embedding_feature() and not raises:
                message = (
                    f"{where} declares output_shape {shown(declared)}, but its input_shape "
                    f"{shown(feature.input_shape)} gives {shown(returned)} (one row of "
                    f"{table_label(layer, feature.table)}, embedding_dim {dim}, a sample: the "
                    f"combiner reduces the last input dimension): {topology.library()} sizes "
                    "the activations from the declared shape, so the layer returns it for ids "
                    "of another shape (and on CPU returns the input's)"
                )
                fix = f"make output_shape {shown(returned)}"
            else:
                message = (
                    f"{where} declares output_shape {shown(declared)}, but the layer returns "
                    f"{shown(returned)} for its input_shape {shown(feature.input_shape)} (one "
                    f"row of {table_label(layer, feature.table)}, embedding_dim {dim}, a sample: "
                    "the combiner reduces the last input dimension) while Keras builds the next "
                    "layers for the declared shape"
                )
                if raises:
                    message += (
                        "; TPUEmbedding's build raises ValueError (\"Inconsistent shape "
                        'founded for input feature") when the layer is built on the TPU'
                    )
                fix = f"make output_shape {shown(returned)}"
            yield Violation(path, message, fix)
