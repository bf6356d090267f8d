"""An applied gradient whose shape differs from its accumulator's.

## What it does
Compares the shape of the constant gradient fed to `ResourceAccumulatorApplyGradient` with the
accumulator's `shape` attribute, where both are fully known.

## Why is this bad?
The accumulator sums gradients of one shape; another shape fails at run time, after the graph was
built and the job started.

## What TensorFlow does
Not checked at construction; at run time: `Shape mismatch: expected [2,3], got [3,3]`.

## Example
```pbtxt
node { name: "acc" op: "ResourceConditionalAccumulator"
       attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
```

## Use instead
A gradient of shape [2, 3].

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/data_flow_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/data_flow_ops.cc),
  `ResourceAccumulatorApplyGradient` (the shape function does not compare the gradient's shape
  with the accumulator's)
- [`tensorflow/core/kernels/conditional_accumulator.h`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/kernels/conditional_accumulator.h),
  `ConditionalAccumulator::ValidateShape` (the run-time check: `Shape mismatch: expected [2,3],
  got [3,3]`)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.accumulators import DENSE_APPLY, const_shape, users
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node, accumulator in users(view, DENSE_APPLY):
        shape_attr = accumulator.attr("shape")
        if (
            shape_attr is None
            or shape_attr.WhichOneof("value") != "shape"
            or len(node.node.input) < 3
        ):
            continue
        shape = shape_attr.shape
        if shape.unknown_rank or any(dim.size < 0 for dim in shape.dim):
            continue
        expected = [int(dim.size) for dim in shape.dim]
        actual = const_shape(node.scope.producer(node, 2))
        if actual is not None and actual != expected:
            yield Violation(
                node.path + ("input", 2),
                f"{node.label} applies a gradient of shape {actual} to {accumulator.label}, "
                f"whose shape is {expected}",
                f"apply gradients of shape {expected}",
            )
