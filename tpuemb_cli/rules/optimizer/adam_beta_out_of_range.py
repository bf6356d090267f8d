"""Adam's beta1 or beta2 is outside [0, 1).

## What it does
Reports `adam { beta1: b }` or `adam { beta2: b }` with b < 0 or b >= 1.

## Why is this bad?
The betas are the decay rates of Adam's moment estimates. At 1 the estimates never forget the
first gradients and the bias correction divides by zero; below 0 they oscillate in sign.
Training diverges or stalls.

## What TensorFlow does
`tf.tpu.experimental.embedding.Adam` raises `ValueError("Argument `beta_1` must be >= 0 and < 1.
...")`; for beta_2 its message prints beta_1's value by mistake. A config written directly is not
checked.

## Example
```pbtxt
adam { beta1: 0.9 beta2: 1.0 epsilon: 1e-07 }
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
  `Adam.__init__` (the `beta_1` and `beta_2` checks; the `beta_2` message prints `beta_1`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number
from tpuemb_cli.rules.base import OptimizationParameters, Site


def check_optimizer(params: OptimizationParameters, site: Site) -> Iterator[Violation]:
    if params.WhichOneof("parameters") != "adam":
        return
    for name in ("beta1", "beta2"):
        value = getattr(params.adam, name)
        if value < 0 or value >= 1:
            from tpuemb_cli.model.optimizers import default  # with a finding only

            yield Violation(
                ("adam", name),
                f"Adam's {name} is {number(value)}, but it must be at least 0 and below 1",
                f"use a decay rate in [0, 1), typically {default('adam', name).written}",
            )
