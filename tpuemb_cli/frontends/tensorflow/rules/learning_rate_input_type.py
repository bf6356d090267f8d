"""A learning rate fed to a send-gradients op that is not a float32 scalar.

## What it does
For each learning-rate input of `SendTPUEmbeddingGradients` and `XlaSendTPUEmbeddingGradients`
whose producer declares its dtype and shape (a Placeholder, a Const), reports one that is not
float32 or not a scalar.

## Why is this bad?
The TPU reads each learning rate as one float32 per step. TensorFlow's own training loop casts
every schedule's value (`math_ops.cast(fn(), dtype=dtypes.float32)`); a graph built another way
may not.

## What TensorFlow does
Construction rejects rank-1 and non-float32 learning rates (`Shape must be rank 0 but is rank 1`;
`... have types [float64, float64] that do not match expected type float32`); a graph edited
afterwards is not re-checked, and an unknown rank is accepted.

## Example
```pbtxt
node { name: "lr0" op: "Placeholder" attr { key: "dtype" value { type: DT_DOUBLE } } }
```

## Use instead
```pbtxt
node { name: "lr0" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { } } } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.apply_gradients` (casts each learning rate to a float32 scalar)
- [`tensorflow/core/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/tpu_embedding_ops.cc),
  `SendTPUEmbeddingGradients` (`learning_rates: NN * float32`, each checked to be rank 0)
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `XlaSendTPUEmbeddingGradients` (`learning_rates: NumLearningRateTags * float32`, likewise)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.accumulators import dtype_name, output_dtype
from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import shape_of
from tpuemb_cli.frontends.tensorflow.rules.lib.embedding_ops import SEND_OPS, int_attr
from tpuemb_cli.model.findings import Violation

FLOAT32 = 1


def check_graph(view: Any) -> Iterator[Violation]:
    for node in view.nodes(*sorted(SEND_OPS)):
        gradients_attr, rates_attr = SEND_OPS[node.node.op]
        gradients = int_attr(node, gradients_attr) or 0
        rates = int_attr(node, rates_attr) or 0
        for position in range(gradients, min(gradients + rates, len(node.node.input))):
            producer = node.scope.producer(node, position)
            dtype = output_dtype(producer)
            shape = shape_of(producer)
            problems = []
            if dtype is not None and dtype != FLOAT32:
                problems.append(f"is {dtype_name(dtype)}, not float32")
            if shape is not None and shape != []:
                problems.append(f"has shape {shape}, not a scalar")
            if problems:
                assert producer is not None
                yield Violation(
                    node.path + ("input", position),
                    f"learning rate {position - gradients} of {node.label} (from "
                    f"{producer.label}) {' and '.join(problems)}",
                    "feed each learning rate as a float32 scalar",
                )
