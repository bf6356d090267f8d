"""AdagradMomentum's exponent is 0 or negative.

## What it does
Reports `adagrad_momentum { exponent: p }` with p <= 0, including an unset exponent (read as 0).

## Why is this bad?
The preconditioner is the accumulator to the power `1/exponent`: an exponent of 0 divides by zero,
a negative one turns the preconditioner upside down, so rows with large gradients get larger
steps.

## What TensorFlow does
`tf.tpu.experimental.embedding.AdagradMomentum` raises `ValueError("Adagrad momentum:
Precondition exponent must >0")`; a config written directly is not checked.

## Example
```pbtxt
adagrad_momentum { momentum: 0.9 beta2: 1 epsilon: 1e-10 }
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
  `AdagradMomentum.__init__` (the `exponent` check)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import OptimizationParameters, Site
from tpuemb_cli.rules.lib.positive import not_positive


def check_optimizer(params: OptimizationParameters, site: Site) -> Iterator[Violation]:
    return not_positive(params, "adagrad_momentum", "exponent")
