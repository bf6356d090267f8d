"""AdagradMomentum's epsilon is 0 or negative.

## What it does
Reports `adagrad_momentum { epsilon: e }` with e <= 0, including an unset epsilon (read as 0).

## Why is this bad?
Epsilon keeps the preconditioner `accumulator^(1/exponent) + epsilon` away from zero; with 0, a
row whose accumulator is still 0 gets an infinite or NaN update.

## What TensorFlow does
`tf.tpu.experimental.embedding.AdagradMomentum` raises `ValueError("Adagrad momentum: epsilon
must be positive")` (checked before the exponent); a config written directly is not checked.

## Example
```pbtxt
adagrad_momentum { momentum: 0.9 exponent: 2 beta2: 1 epsilon: 0 }
```

## Use instead
```pbtxt
adagrad_momentum { momentum: 0.9 exponent: 2 beta2: 1 epsilon: 1e-10 }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `AdagradMomentum.__init__` (the `epsilon` check)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import OptimizationParameters, Site
from tpuemb_cli.rules.lib.positive import not_positive


def check_optimizer(params: OptimizationParameters, site: Site) -> Iterator[Violation]:
    return not_positive(params, "adagrad_momentum", "epsilon")
