"""multiply_weight_decay_factor_by_learning_rate is set without any weight decay.

## What it does
Reports `multiply_weight_decay_factor_by_learning_rate: true` when `weight_decay_factor` is 0
(or unset).

## Why is this bad?
The flag scales the decay by the learning rate; with no decay there is nothing to scale. It reads
as if decay were configured when it is not -- usually a factor that was lost on the way.

## What TensorFlow does
TensorFlow's optimizers drop the flag silently in this case: it is written only inside `if
self.weight_decay_factor:` (`tests/data/tf-2.21/optim/sgd_weight_decay_zero_mult_lr.pbtxt`,
`sgd_weight_decay_none_mult_lr.pbtxt`).

## Example
```pbtxt
multiply_weight_decay_factor_by_learning_rate: true
```

## Use instead
```pbtxt
weight_decay_factor: 0.01
multiply_weight_decay_factor_by_learning_rate: true
```

## Fix safety
Safe: `--fix` deletes the flag, which has no effect.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `_Optimizer._set_optimization_parameters` (writes
  `multiply_weight_decay_factor_by_learning_rate` only inside `if self.weight_decay_factor:`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import OptimizationParameters, Site


def check_optimizer(params: OptimizationParameters, site: Site) -> Iterator[Violation]:
    if params.multiply_weight_decay_factor_by_learning_rate and params.weight_decay_factor == 0:
        from tpuemb_cli.model.edits import DeleteField, Fix  # with a finding only

        yield Violation(
            ("multiply_weight_decay_factor_by_learning_rate",),
            "`multiply_weight_decay_factor_by_learning_rate` has no effect: there is no weight "
            "decay (`weight_decay_factor` is 0)",
            "set the `weight_decay_factor` you meant, or delete the flag",
            Fix(
                (DeleteField(("multiply_weight_decay_factor_by_learning_rate",)),),
                safe=True,
                title="delete the flag",
            ),
        )
