"""A take-gradient op that requires fewer than one gradient.

## What it does
Reports `ResourceAccumulatorTakeGradient` (and `AccumulatorTakeGradient`,
`SparseAccumulatorTakeGradient`) whose `num_required` input is a constant below 1.

## Why is this bad?
Take-gradient returns the average (MEAN) or sum (SUM) of at least `num_required` gradients
applied since the last take, then resets the accumulator and advances its global step. Requiring 0
means there is nothing to average; the op fails at run time.

## What TensorFlow does
Not checked at construction; at run time: `Argument num_required must be positive, but was 0`
(InvalidArgumentError).

## Example
```pbtxt
node { name: "n" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 0 } } } }
```

## Use instead
```pbtxt
node { name: "n" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 1 } } } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/ops/data_flow_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/data_flow_ops.cc),
  `ResourceAccumulatorTakeGradient` (`num_required: int32`, checked to be a scalar only: a graph
  with `num_required` 0 builds)
- [`tensorflow/core/kernels/conditional_accumulator_base.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/kernels/conditional_accumulator_base.cc),
  `ConditionalAccumulatorBase::TryTakeGrad` (the run-time check: `Argument num_required must be
  positive, but was 0`)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.accumulators import TAKE, const_int
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import plural


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(TAKE)):
        if len(node.node.input) < 2:
            continue
        producer = node.scope.producer(node, 1)
        value = const_int(producer)
        if value is not None and value < 1:
            assert producer is not None
            yield Violation(
                producer.path + ("attr", "value"),
                f"{node.label} requires {plural(value, 'gradient')} (`num_required`, from "
                f"{producer.label}); it must be at least 1",
                "require at least one gradient",
            )
