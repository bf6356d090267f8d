"""A JAX table's own input limits, ignored because it is stacked with other tables.

## What it does
Reports a table of a spec made from jax-tpu-embedding's objects (`tpuemb_cli.jax.spec_from_jax`)
that sets `max_ids_per_partition` or `max_unique_ids_per_partition` to something other than the
library's default (256) and its stack's (256 too, unless `jax.stack_max_ids_per_partition` /
`jax.stack_max_unique_ids_per_partition` name the stack) and shares its stack with other tables:
an explicit one (`jax.stack`), or one auto-stacking makes (`jax.auto_stack`).

## Why is this bad?
The limits size the input buffers and say how many ids a partition may take before ids are
dropped. A table's own limits count only while it is alone in its stack: the setting the user
tuned does nothing, and the stack runs with the default (too small: ids dropped; too large:
memory).

## What jax-tpu-embedding does
`_get_limits_for_stack` takes a table's limits only for a stack of one table; for a stack of
several it logs a warning and uses `stack_to_max_ids_per_partition` and
`stack_to_max_unique_ids_per_partition` (256 each by default, `get_default_limits`) instead.
Keras-RS users meet it as limits lost when tables are stacked (keras-team/keras-rs#166).

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 1000 dim: 16 jax { stack: "ab" max_ids_per_partition: 1024 } }
tables { name: "b" vocabulary_size: 1000 dim: 16 jax { stack: "ab" } }
```

## Use instead
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 1000 dim: 16 jax { stack: "a" max_ids_per_partition: 1024 } }
tables { name: "b" vocabulary_size: 1000 dim: 16 jax { stack: "b" } }
```
Or set the stack's limits: pass `stack_to_max_ids_per_partition` to `stack_tables` /
`auto_stack_tables`, or call `embedding.update_preprocessing_parameters` after stacking; or keep
the table in a stack of its own.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_get_limits_for_stack` and `get_default_limits`
- [keras-team/keras-rs#166](https://github.com/keras-team/keras-rs/issues/166)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import DEFAULT_LIMIT, stacks, table_label, table_path
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts

LIMITS = ("max_ids_per_partition", "max_unique_ids_per_partition")


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    for name, members in stacks(facts).items():
        if len(members) < 2:
            continue
        for index in members:
            table = spec.tables[index]
            for limit in LIMITS:
                if not table.jax.HasField(limit):
                    continue
                value = getattr(table.jax, limit)
                stack_limits = getattr(spec.jax, f"stack_{limit}")
                used = stack_limits.get(name, DEFAULT_LIMIT)
                # The library's default is what a TableSpec has unless set: nothing tuned.
                if value in (used, DEFAULT_LIMIT):
                    continue
                given = (
                    f"{used}, from jax.stack_{limit}"
                    if name in stack_limits
                    else f"{used} by default"
                )
                yield Violation(
                    (*table_path(index), "jax", limit),
                    f"{table_label(index, table)} sets {limit} {value}, but it is stacked "
                    f'in "{name}" with {len(members) - 1} other table(s): the library ignores '
                    f"a table's limits in a stack of several and uses the stack's ({given})",
                    f"set the stack's {limit} (stack_to_{limit} or "
                    "update_preprocessing_parameters), or stack the table alone",
                )
