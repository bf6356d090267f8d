"""Adam's epsilon is 0 or negative.

## What it does
Reports `adam { epsilon: e }` with e <= 0, including an epsilon left unset (proto3 reads it as
0).

## Why is this bad?
Epsilon keeps Adam's update `m / (sqrt(v) + epsilon)` finite where the second moment `v` is 0 --
for every embedding row that has not been seen yet. With epsilon 0 those updates are NaN or
infinite.

## What TensorFlow does
`tf.tpu.experimental.embedding.Adam` raises `ValueError("epsilon must be positive; got 0.0.")`;
a config written directly is not checked.

## Example
```pbtxt
adam { beta1: 0.9 beta2: 0.999 }
```

## Use instead
```pbtxt
adam { beta1: 0.9 beta2: 0.999 epsilon: 1e-07 }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `Adam.__init__` (the `epsilon` check)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number
from tpuemb_cli.rules.base import OptimizationParameters, Site


def check_optimizer(params: OptimizationParameters, site: Site) -> Iterator[Violation]:
    if params.WhichOneof("parameters") == "adam" and params.adam.epsilon <= 0:
        unset = " (or not set)" if params.adam.epsilon == 0 else ""
        from tpuemb_cli.model.optimizers import default  # with a finding only

        yield Violation(
            ("adam", "epsilon"),
            f"Adam's epsilon is {number(params.adam.epsilon)}{unset}; it must be positive or "
            "updates of unseen rows divide by zero",
            f"set `epsilon: {default('adam', 'epsilon').written}` (TensorFlow's default)",
        )
