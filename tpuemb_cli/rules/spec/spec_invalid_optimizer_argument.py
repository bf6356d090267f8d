"""An optimizer argument that TensorFlow's optimizer classes reject when constructed.

## What it does
Checks each optimizer of the spec as its TensorFlow class's constructor does: Adagrad's and FTRL's
`initial_accumulator_value` > 0 (FTRL's even with `allow_zero_accumulator`), AdagradMomentum's
`epsilon` > 0 then `exponent` > 0, Adam's `beta_1` and `beta_2` in [0, 1) and `epsilon` > 0,
and non-lazy Adam only with gradient accumulation.

## Why is this bad?
The training script fails at construction -- or, for a config written some other way, trains
with settings that divide by zero or never converge.

## What TensorFlow does
The constructors raise `ValueError`, some with misleading text: Adam's `beta_2` message prints
`beta_1`'s value, and the non-lazy Adam message says to set `use_gradient_accumulation` to False
(it must be True). This rule's messages name the right argument and the right fix.

## Example
```yaml
optimizer: {adam: {beta_2: 1.0}}
```

## Use instead
```yaml
optimizer: {adam: {beta_2: 0.999}}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `Adagrad.__init__`, `AdagradMomentum.__init__`, `FTRL.__init__` and `Adam.__init__` (the
  argument checks and their messages)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import optimizers
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    for path, optimizer in optimizers(spec):
        algorithm = optimizer.WhichOneof("algorithm")
        if algorithm in ("adagrad", "ftrl"):
            settings = getattr(optimizer, algorithm)
            value = (
                settings.initial_accumulator_value
                if settings.HasField("initial_accumulator_value")
                else 0.1
            )
            if value <= 0:
                yield Violation(
                    path + (algorithm, "initial_accumulator_value"),
                    f"`initial_accumulator_value` is {number(value)}; TensorFlow's "
                    f"{'Adagrad' if algorithm == 'adagrad' else 'FTRL'} requires it to be positive"
                    + (" (even with allow_zero_accumulator)" if algorithm == "ftrl" else ""),
                    "use a small positive value such as 0.1 (the default)",
                )
        elif algorithm == "adagrad_momentum":
            momentum = optimizer.adagrad_momentum
            epsilon = momentum.epsilon if momentum.HasField("epsilon") else 1e-10
            exponent = momentum.exponent if momentum.HasField("exponent") else 2.0
            if epsilon <= 0:
                yield Violation(
                    path + ("adagrad_momentum", "epsilon"),
                    f"AdagradMomentum's epsilon is {number(epsilon)}; it must be positive",
                    "use 1e-10 (the default)",
                )
            elif exponent <= 0:
                yield Violation(
                    path + ("adagrad_momentum", "exponent"),
                    f"AdagradMomentum's exponent is {number(exponent)}; it must be positive",
                    "use 2 (the default)",
                )
        elif algorithm == "adam":
            adam = optimizer.adam
            for field, default in (("beta_1", 0.9), ("beta_2", 0.999)):
                value = getattr(adam, field) if adam.HasField(field) else default
                if not 0 <= value < 1:
                    yield Violation(
                        path + ("adam", field),
                        f"Adam's {field} is {number(value)}; it must be >= 0 and < 1",
                        f"use a decay rate in [0, 1), typically {default}",
                    )
            epsilon = adam.epsilon if adam.HasField("epsilon") else 1e-7
            if epsilon <= 0:
                yield Violation(
                    path + ("adam", "epsilon"),
                    f"Adam's epsilon is {number(epsilon)}; it must be positive",
                    "use 1e-07 (the default)",
                )
            accumulate = not optimizer.HasField("use_gradient_accumulation") or (
                optimizer.use_gradient_accumulation
            )
            if adam.HasField("lazy_adam") and not adam.lazy_adam and not accumulate:
                yield Violation(
                    path + ("use_gradient_accumulation",),
                    "non-lazy Adam (`lazy_adam: false`) needs gradient accumulation, but "
                    "`use_gradient_accumulation` is false",
                    "set `use_gradient_accumulation: true` (TensorFlow's message says False: "
                    "that is a bug in its message)",
                )
