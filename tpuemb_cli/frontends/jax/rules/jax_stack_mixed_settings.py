"""Tables of one JAX stack with different optimizers or combiners.

## What it does
Reports a table of a spec made from jax-tpu-embedding's objects (`tpuemb_cli.jax.spec_from_jax`)
whose stack (`jax.stack`: an explicit stack asked for, or the one the library put it in) holds a
table of another optimizer -- class, learning rate or hyperparameters -- or another combiner than
the stack's first table.

## Why is this bad?
A stack is one variable trained by one optimizer and looked up with one combiner: the stack's
`StackedTableSpec` takes both from its first table, so every other table would train and combine
like it.

## What jax-tpu-embedding does
`stack_tables` (explicit stacks) raises `ValueError` ("Tables [...] in group ... have different
optimizers" / "different combiners") from `_verify_stack_tables`. Auto-stacking
(`auto_stack_tables`) groups tables by padded dimension, optimizer and combiner as dict keys; an
`OptimizerSpec`'s `__eq__` compares only `__hash__`, a hash of its hyperparameters without its
class, so optimizers of different classes whose hyperparameters hash alike land in one stack
without a word, and all train with the first one's.

## Example
What `spec_from_jax(..., stacks={"ab": ["a", "b"]})` writes for an `SGDOptimizerSpec` table
and an `AdagradOptimizerSpec` one:
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables {
  name: "a" vocabulary_size: 1000 dim: 16 combiner: "sum"
  jax { stack: "ab" optimizer { type: "SGDOptimizerSpec" learning_rate { constant: 0.1 } } }
}
tables {
  name: "b" vocabulary_size: 1000 dim: 16 combiner: "sum"
  jax { stack: "ab" optimizer { type: "AdagradOptimizerSpec" learning_rate { constant: 0.1 } } }
}
```

## Use instead
Stack only tables with the same optimizer and combiner; give the others stacks of their own:
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables {
  name: "a" vocabulary_size: 1000 dim: 16 combiner: "sum"
  jax { stack: "ab" optimizer { type: "SGDOptimizerSpec" learning_rate { constant: 0.1 } } }
}
tables {
  name: "b" vocabulary_size: 1000 dim: 16 combiner: "sum"
  jax { optimizer { type: "AdagradOptimizerSpec" learning_rate { constant: 0.1 } } }
}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_verify_stack_tables`, `_group_tables_for_stacking` and `_stack_feature_specs`
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding_spec.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding_spec.py),
  `OptimizerSpec.__eq__`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import stacks, table_label, table_path
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def _optimizer(table: Any) -> str:
    """The optimizer as the message shows it: its class, learning rate and settings."""
    optimizer = table.jax.optimizer
    rate = optimizer.learning_rate
    which = rate.WhichOneof("value")
    exact = optimizer.settings.get("learning_rate")  # a rate float32 would not tell apart
    shown = (
        [f"learning_rate={rate.schedule}"]
        if which == "schedule"
        else [
            f"learning_rate={exact!r}" if exact is not None else f"learning_rate={rate.constant:g}"
        ]
        if which == "constant"
        else []
    )
    shown += [
        f"{name}={value:g}"
        for name, value in sorted(optimizer.settings.items())
        if name != "learning_rate"
    ]
    if optimizer.custom:  # which of the script's custom update functions
        shown.append(f"custom={optimizer.custom}")
    return f"{optimizer.type}({', '.join(shown)})"


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    for name, members in stacks(facts).items():
        first = spec.tables[members[0]]
        for index in members[1:]:
            table = spec.tables[index]
            # An optimizer the library cannot hash it cannot compare either (TE676 says so).
            comparable = not (table.jax.optimizer.unhashable or first.jax.optimizer.unhashable)
            if comparable and table.jax.optimizer != first.jax.optimizer:
                yield Violation(
                    (*table_path(index), "jax", "optimizer"),
                    f"{table_label(index, table)} trains with {_optimizer(table)}, but "
                    f'{table_label(members[0], first)}, first in stack "{name}", with '
                    f"{_optimizer(first)}: stack_tables raises ValueError; auto-stacking "
                    "trains the whole stack with the first table's optimizer",
                    "give the tables one optimizer, or put this one in a stack of its own",
                )
            if table.combiner != first.combiner:
                yield Violation(
                    (*table_path(index), "combiner"),
                    f'{table_label(index, table)} combines with "{table.combiner}", but '
                    f'{table_label(members[0], first)}, first in stack "{name}", with '
                    f'"{first.combiner}": stack_tables raises ValueError',
                    "give the tables one combiner, or put this one in a stack of its own",
                )
