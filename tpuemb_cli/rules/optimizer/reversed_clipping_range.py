"""A clipping range whose lower limit is above its upper limit.

## What it does
Reports `clipping_limits` (weights) or `gradient_clipping_limits` (gradients) with
`lower.value > upper.value`.

## Why is this bad?
Clipping computes `min(max(x, lower), upper)`. With lower > upper that is `upper` for every x:
every weight, or every gradient, is replaced by one constant. Training runs and learns nothing
useful, without an error.

## What TensorFlow does
Nothing checks it. A negative scalar `clipvalue` gives exactly this (`clipvalue=-2.0` is written as
lower 2.0, upper -2.0), and so does a reversed tuple (`clipvalue=(5.0, -5.0)`), or
`clip_weight_min` above `clip_weight_max`.

## Example
```pbtxt
gradient_clipping_limits { lower { value: 2 } upper { value: -2 } }
```

## Use instead
```pbtxt
gradient_clipping_limits { lower { value: -2 } upper { value: 2 } }
```

## Fix safety
Unsafe: `--unsafe-fixes` swaps the limits. That is almost always the intent, but it changes how
the model trains, so it is never applied by `--fix` alone.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `_Optimizer._set_optimization_parameters` (a scalar `clipvalue` becomes `(-clipvalue,
  clipvalue)`, a tuple is taken as given, and the limits are not compared)
- `tests/data/tf-2.21/optim/sgd_clipvalue_negative_scalar.pbtxt` and
  `sgd_clipvalue_reversed_tuple.pbtxt` in this repository: reversed ranges written by TensorFlow
  2.21 itself
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number
from tpuemb_cli.rules.base import OptimizationParameters, Site
from tpuemb_cli.rules.lib.clipping import both_limits


def check_optimizer(params: OptimizationParameters, site: Site) -> Iterator[Violation]:
    for field, what, lower, upper in both_limits(params):
        if lower > upper:
            from tpuemb_cli.model.edits import Fix, SetValue  # with a finding only

            yield Violation(
                (field,),
                f"the {what} clipping range is reversed: lower {number(lower)} is above upper "
                f"{number(upper)}, so every {what} is replaced by {number(upper)}",
                f"swap the limits (lower {number(upper)}, upper {number(lower)}); a negative "
                "scalar clipvalue causes this, use a positive one",
                Fix(
                    (
                        SetValue((field, "lower", "value"), upper),
                        SetValue((field, "upper", "value"), lower),
                    ),
                    safe=False,
                    title="swap the limits",
                ),
            )
