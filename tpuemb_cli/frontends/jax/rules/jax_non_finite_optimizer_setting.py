"""A NaN or infinite learning rate or optimizer setting of a JAX table.

## What it does
Reports each NaN or ±inf among a JAX table's optimizer hyperparameters: in jax-tpu-embedding's
`EmbeddingSpecProto`, a table's `optimizer.learning_rate` and each of its `float_params`; in a
spec made from the library's objects (`tpuemb_cli.jax.spec_from_jax`), a table's
`jax.optimizer.learning_rate.constant` and each of its `settings`. The TensorFlow rules say the
same of a TPUEmbeddingConfiguration's optimizers (`invalid-learning-rate`, `non-finite-float`).

## Why is this bad?
A non-finite learning rate makes every embedding it updates NaN at the first step; a NaN or
infinite beta, epsilon, momentum or regularization strength does the same, or disables what it
was meant to bound. Training goes on, producing garbage.

## What jax-tpu-embedding does
Nothing checks it. Run on CPU with 0.1.0, `SGDOptimizerSpec(learning_rate=float("nan"))`,
`AdamOptimizerSpec(epsilon=float("inf"))`, `FTRLOptimizerSpec(l1_regularization_strength=
float("-inf"))` and `AdagradOptimizerSpec(initial_accumulator_value=float("nan"))` are accepted,
and `get_hyperparameters()` hands the NaN or infinity on to the update as a float32 array.

## Example
```pbtxt
stacked_table_specs {
  table_specs {
    table_name: "a"
    optimizer { type: ADAM learning_rate: nan float_params { key: "epsilon" value: inf } }
  }
}
```

## Use instead
```pbtxt
    optimizer { type: ADAM learning_rate: 0.001 float_params { key: "epsilon" value: 1e-07 } }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding_spec.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding_spec.py),
  the `OptimizerSpec` classes and `get_hyperparameters`
- jax-tpu-embedding 0.2.0's `embedding_spec.proto`, `OptimizerSpecProto` (the proto of 0.1.0
  records no optimizer)
"""

import math
from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib import spec as jax_spec
from tpuemb_cli.frontends.jax.rules.lib import stacks as jax_stacks
from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.words import number
from tpuemb_cli.spec.facts import SpecFacts

# The TensorFlow rules' words (invalid-learning-rate, non-finite-float).
RATE = "is not a finite number; every embedding it updates becomes NaN"
RATE_FIX = "use a small positive learning rate"
SETTING_FIX = "replace it with the finite value you meant"


def _rate(where: str, path: FieldPath, value: float) -> Violation:
    return Violation(path, f"{where}: the constant learning rate {number(value)} {RATE}", RATE_FIX)


def _settings(where: str, path: FieldPath, settings: Any) -> Iterator[Violation]:
    for key in sorted(settings):
        value = settings[key]
        if not math.isfinite(value):
            yield Violation(
                (*path, key),
                f"{where}: `{shown(key)}` is {number(value)}; optimizer settings must be finite "
                "numbers",
                SETTING_FIX,
            )


def check_jax(spec: Any) -> Iterator[Violation]:
    for s, stack, t, table in jax_stacks.tables(spec):
        if not table.HasField("optimizer"):
            continue
        optimizer, path = table.optimizer, (*jax_stacks.table_path(s, t), "optimizer")
        where = f"{jax_stacks.table_label(t, table)} of {jax_stacks.stack_label(s, stack)}"
        rate = optimizer.learning_rate
        if optimizer.WhichOneof("learning_rate_spec") == "learning_rate" and not math.isfinite(
            rate
        ):
            yield _rate(where, (*path, "learning_rate"), rate)
        yield from _settings(where, (*path, "float_params"), optimizer.float_params)


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        if not table.jax.HasField("optimizer"):
            continue
        optimizer = table.jax.optimizer
        path = (*jax_spec.table_path(index), "jax", "optimizer")
        where = jax_spec.table_label(index, table)
        rate = optimizer.learning_rate
        if rate.WhichOneof("value") == "constant" and not math.isfinite(rate.constant):
            yield _rate(where, (*path, "learning_rate", "constant"), rate.constant)
        yield from _settings(where, (*path, "settings"), optimizer.settings)
