"""A gradient fed to a send-gradients op whose shape differs from its activation's.

## What it does
For `SendTPUEmbeddingGradients` and `XlaSendTPUEmbeddingGradients`, compares each gradient's
shape, where its producer declares it, with the activation shape the node's config implies: the
feature's `input_shape`, its first (batch) dimension times the SPMD cores per replica, then the
table's `dimension` (without feature descriptors, [batch x num_features, dimension] per table).

## Why is this bad?
The gradient for feature i is applied to the rows looked up for feature i; a gradient of another
shape updates the wrong rows, or fails on the TPU.

## What TensorFlow does
Not checked at construction (a `SendTPUEmbeddingGradients` with a wrong gradient shape builds); the
Python API checks it in `apply_gradients` (`Found gradient of shape ... Expected shape ...`), which
a graph built another way bypasses.

## Example
```pbtxt
# config: feature input_shape [8], table dimension 4; gradient Placeholder shape [8, 5]
```

## Use instead
A gradient of shape [8, 4].

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.apply_gradients` (`Found gradient of shape ... Expected shape ...`)
- [`tensorflow/core/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/tpu_embedding_ops.cc),
  `SendTPUEmbeddingGradients` (the shape function does not check gradient shapes)
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `XlaSendTPUEmbeddingGradients` (likewise)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import shape_of
from tpuemb_cli.frontends.tensorflow.rules.lib.embedding_ops import (
    SEND_OPS,
    activation_shapes,
    config_of,
    int_attr,
)
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(SEND_OPS)):
        config = config_of(node)
        if config is None:
            continue
        expected = activation_shapes(config)
        count = int_attr(node, SEND_OPS[node.node.op][0]) or 0
        for position in range(min(count, len(expected), len(node.node.input))):
            actual = shape_of(node.scope.producer(node, position))
            want = expected[position]
            if actual is None or not want or any(d < 0 for d in actual):
                continue
            if actual != want:
                yield Violation(
                    node.path + ("input", position),
                    f"gradient {position} of {node.label} has shape {actual}; its activation's "
                    f"shape is {want}",
                    f"feed a gradient of shape {want}",
                )
