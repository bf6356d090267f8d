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

from google.protobuf.message import Message

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.optimizers import Argument, Optimizer, of_spec
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.words import number
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import optimizers
from tpuemb_cli.spec.facts import SpecFacts


def _value(settings: Message, argument: Argument) -> float:
    """The argument's value: the spec's, else TensorFlow's default."""
    if settings.HasField(argument.name):
        value: float = getattr(settings, argument.name)
        return value
    return argument.default


def _not_positive(
    path: FieldPath, row: Optimizer, settings: Message, name: str
) -> Violation | None:
    argument = row.argument(name)
    value = _value(settings, argument)
    if value > 0:
        return None
    return Violation(
        path + (row.spec, name),
        f"{row.tf_class}'s {name} is {number(value)}; it must be positive",
        f"use {argument.written} (the default)",
    )


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    for path, optimizer in optimizers(spec):
        algorithm = optimizer.WhichOneof("algorithm")
        row = of_spec(algorithm) if algorithm is not None else None
        if row is None:
            continue
        settings = getattr(optimizer, row.spec)
        if algorithm in ("adagrad", "ftrl"):
            initial = row.argument("initial_accumulator_value")
            value = _value(settings, initial)
            if value <= 0:
                yield Violation(
                    path + (row.spec, initial.name),
                    f"`initial_accumulator_value` is {number(value)}; TensorFlow's "
                    f"{row.tf_class} requires it to be positive"
                    + (" (even with allow_zero_accumulator)" if algorithm == "ftrl" else ""),
                    f"use a small positive value such as {initial.written} (the default)",
                )
        elif algorithm == "adagrad_momentum":
            # TensorFlow checks epsilon first, then the exponent.
            found = _not_positive(path, row, settings, "epsilon") or _not_positive(
                path, row, settings, "exponent"
            )
            if found is not None:
                yield found
        elif algorithm == "adam":
            for argument in (row.argument("beta_1"), row.argument("beta_2")):
                value = _value(settings, argument)
                if not 0 <= value < 1:
                    yield Violation(
                        path + (row.spec, argument.name),
                        f"{row.tf_class}'s {argument.name} is {number(value)}; it must be >= 0 "
                        "and < 1",
                        f"use a decay rate in [0, 1), typically {argument.written}",
                    )
            found = _not_positive(path, row, settings, "epsilon")
            if found is not None:
                yield found
            accumulate = not optimizer.HasField("use_gradient_accumulation") or (
                optimizer.use_gradient_accumulation
            )
            adam = optimizer.adam
            if adam.HasField("lazy_adam") and not adam.lazy_adam and not accumulate:
                yield Violation(
                    path + ("use_gradient_accumulation",),
                    "non-lazy Adam (`lazy_adam: false`) needs gradient accumulation, but "
                    "`use_gradient_accumulation` is false",
                    "set `use_gradient_accumulation: true` (TensorFlow's message says False: "
                    "that is a bug in its message)",
                )
