"""A take-gradient or apply-gradient op whose dtype differs from its accumulator's.

## What it does
Follows the handle input of `ResourceAccumulatorTakeGradient` / `ResourceAccumulatorApplyGradient`
(the non-resource variants, and `SparseAccumulatorTakeGradient` / `SparseAccumulatorApplyGradient`
on a `SparseConditionalAccumulator`) to its accumulator, and compares: the take-gradient's
`dtype`, the apply-gradient's `dtype`, and the dtype of the gradient it applies (the sparse op's
`gradient_values`; where its producer says), with the accumulator's `dtype`.

## Why is this bad?
The accumulator holds one dtype. A take-gradient of another dtype, or a gradient of another dtype,
reinterprets its memory.

## What TensorFlow does
Not checked at construction. At run time the process dies: a take-gradient with dtype float64 on
a float32 accumulator crashes with SIGSEGV; an apply-gradient with a float64 gradient aborts with
`Check failed: dtype() == expected_dtype (2 vs. 1) float expected, got double` (SIGABRT). The
sparse ops are no safer: `SparseAccumulatorApplyGradient` with `dtype: DT_UINT64` on a float
accumulator aborts with `float expected, got uint64` (TensorFlow issue 74917).

## Example
```pbtxt
node { name: "acc" op: "ResourceConditionalAccumulator"
       attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "take" op: "ResourceAccumulatorTakeGradient" input: "acc" input: "n"
       attr { key: "dtype" value { type: DT_DOUBLE } } }
```

## Use instead
```pbtxt
node { name: "take" op: "ResourceAccumulatorTakeGradient" input: "acc" input: "n"
       attr { key: "dtype" value { type: DT_FLOAT } } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/data_flow_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/data_flow_ops.cc),
  `ResourceConditionalAccumulator`, `ResourceAccumulatorTakeGradient`,
  `ResourceAccumulatorApplyGradient` (no shape function compares the dtypes: such a graph builds,
  and running it crashes the process)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.accumulators import (
    APPLY,
    GRADIENT_INPUT,
    TAKE,
    dtype_attr,
    dtype_name,
    output_dtype,
    users,
)
from tpuemb_cli.model.findings import Violation


def check_graph(view: Any) -> Iterator[Violation]:
    for node, accumulator in users(view, TAKE | APPLY):
        expected = dtype_attr(accumulator)
        if expected is None:
            continue
        own = dtype_attr(node)
        if own is not None and own != expected:
            yield Violation(
                node.path + ("attr", "dtype"),
                f"{node.label} has dtype {dtype_name(own)}, but {accumulator.label} holds "
                f"{dtype_name(expected)}; TensorFlow does not check this and the process crashes",
                f"use dtype {dtype_name(expected)}",
            )
        at = GRADIENT_INPUT.get(node.node.op)
        if at is not None and len(node.node.input) > at:
            gradient = output_dtype(node.scope.producer(node, at))
            if gradient is not None and gradient != expected:
                yield Violation(
                    node.path + ("input", at),
                    f"{node.label} applies a {dtype_name(gradient)} gradient to "
                    f"{accumulator.label}, which holds {dtype_name(expected)}; the process aborts",
                    f"cast the gradient to {dtype_name(expected)}",
                )
