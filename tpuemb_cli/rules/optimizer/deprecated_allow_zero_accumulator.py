"""FTRL's deprecated allow_zero_accumulator is set.

## What it does
Reports `ftrl { allow_zero_accumulator: true }`; the field is `[deprecated = true]` in
TensorFlow's proto.

## Why is this bad?
The field no longer does what its name says, and deprecated fields are removed in time; a config
that sets it breaks the day it is. TensorFlow's own `FTRL` class still writes it when asked,
while rejecting a zero initial accumulator anyway.

## What TensorFlow does
The parser accepts it without a warning. `FTRL(initial_accumulator_value=0,
allow_zero_accumulator=True)` raises, contrary to its docstring.

## Example
```pbtxt
ftrl { lr_power: -0.5 allow_zero_accumulator: true }
```

## Use instead
```pbtxt
ftrl { lr_power: -0.5 }
```

## Fix safety
Safe: `--fix` deletes the field, which has no effect.

## Options
None.

## References
- [`tensorflow/core/protobuf/tpu/optimization_parameters.proto`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/protobuf/tpu/optimization_parameters.proto),
  `FtrlParameters.allow_zero_accumulator` (`[deprecated = true]`)
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `FTRL.__init__` (still sets it, and rejects `initial_accumulator_value=0` even with
  `allow_zero_accumulator=True`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import OptimizationParameters, Site


def check_optimizer(params: OptimizationParameters, site: Site) -> Iterator[Violation]:
    if params.WhichOneof("parameters") == "ftrl" and params.ftrl.allow_zero_accumulator:
        from tpuemb_cli.model.edits import DeleteField, Fix  # with a finding only

        yield Violation(
            ("ftrl", "allow_zero_accumulator"),
            "`allow_zero_accumulator` is deprecated in TensorFlow's proto and has no effect",
            "delete `allow_zero_accumulator`",
            Fix(
                (DeleteField(("ftrl", "allow_zero_accumulator")),),
                safe=True,
                title="delete the deprecated field",
            ),
        )
