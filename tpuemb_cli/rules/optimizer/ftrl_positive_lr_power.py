"""FTRL's lr_power is positive.

## What it does
Reports `ftrl { lr_power: p }` with p > 0.

## Why is this bad?
FTRL's per-coordinate learning rate is `learning_rate / (beta + accumulator^(-lr_power))`-style
scaled: `lr_power` must be 0 or negative (-0.5 is the usual choice) so that the steps shrink as a
coordinate's squared gradients accumulate. A positive power makes the steps grow with every
update and the weights diverge.

## What TensorFlow does
Nothing checks it. The `FTRL` docstring says `learning_rate_power` "must be less or equal to
zero", but `FTRL(learning_rate_power=1.0)` constructs and writes `lr_power: 1`.

## Example
```pbtxt
ftrl { lr_power: 0.5 }
```

## Use instead
```pbtxt
ftrl { lr_power: -0.5 }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `FTRL.__init__` (its docstring asks for `learning_rate_power` <= 0; nothing checks it) and
  `FTRL._set_optimization_parameters` (writes `lr_power` as given)
- `tests/data/tf-2.21/optim/ftrl_positive_lr_power_negative_l1.pbtxt` in this repository: such a
  config, written by TensorFlow 2.21 itself (`lr_power: 0.5`, `l1: -1.0`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number
from tpuemb_cli.rules.base import OptimizationParameters, Site


def check_optimizer(params: OptimizationParameters, site: Site) -> Iterator[Violation]:
    if params.WhichOneof("parameters") == "ftrl" and params.ftrl.lr_power > 0:
        from tpuemb_cli.model.optimizers import default  # with a finding only

        yield Violation(
            ("ftrl", "lr_power"),
            f"FTRL's lr_power is {number(params.ftrl.lr_power)}; it must be 0 or negative, or "
            "steps grow with every update",
            f"use `lr_power: {default('ftrl', 'lr_power').written}` (TensorFlow's default)",
        )
