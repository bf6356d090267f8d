"""A stacked JAX table whose optimizer holds an array the library cannot hash.

## What it does
Reports a table of a spec made from jax-tpu-embedding's objects (`tpuemb_cli.jax.spec_from_jax`)
whose optimizer holds a value Python cannot hash -- a `jax.Array` or NumPy array learning rate
such as `jnp.array(0.1)`, which the spec records in `jax.optimizer.unhashable` -- when the
library stacks it: every table with `jax.auto_stack`, a table of an explicit stack (`jax.stack`)
otherwise. A table left alone is not reported: `prepare_feature_specs_for_training` does not hash
its optimizer.

## Why is this bad?
The script stops before training starts, with a `TypeError` from deep in the stacking code that
does not name the table or say that the learning rate is the cause.

## What jax-tpu-embedding does
Every `OptimizerSpec` defines `__hash__` as a hash of its learning rate and hyperparameters, and
`__eq__` as a comparison of those hashes. `auto_stack_tables` keys its groups by
`(padded dimension, optimizer, combiner)` (`_group_tables_for_stacking`), and `stack_tables`
compares each table's optimizer with the first one's (`_verify_stack_tables`, even in a stack of
one table): both hash the optimizer, and raise `TypeError: unhashable type:
'jaxlib._jax.ArrayImpl'` (`'numpy.ndarray'` for a NumPy array). A 0-d array is otherwise a valid
learning rate (`get_learning_rate` wraps it in `jnp.array`), and a NumPy scalar such as
`np.float32(0.1)` hashes.

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 auto_stack: true }
tables {
  name: "a" vocabulary_size: 1000 dim: 16 combiner: "sum"
  jax {
    optimizer {
      type: "SGDOptimizerSpec" learning_rate { constant: 0.1 } unhashable: "learning_rate"
    }
  }
}
```

## Use instead
Pass the learning rate as a Python float (`float(rate)`), or a schedule function for one that
changes:
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 auto_stack: true }
tables {
  name: "a" vocabulary_size: 1000 dim: 16 combiner: "sum"
  jax { optimizer { type: "SGDOptimizerSpec" learning_rate { constant: 0.1 } } }
}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding_spec.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding_spec.py),
  `OptimizerSpec.__eq__` and each class's `__hash__`
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_group_tables_for_stacking` and `_verify_stack_tables`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.spec.stacking import problems
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    for problem in problems(spec, facts.jax_stacking):
        if problem.rule == "TE676":
            yield Violation(problem.path, problem.message, problem.fix)
