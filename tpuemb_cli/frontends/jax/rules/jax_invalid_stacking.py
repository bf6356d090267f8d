"""A JAX spec whose stacking jax-tpu-embedding refuses, or garbles without a word.

## What it does
Reports, in a spec made from jax-tpu-embedding's objects (`tpuemb_cli.jax.spec_from_jax`), what
stops the library from stacking and preparing the tables as the spec asks
(`tpuemb compile --target jax` lays them out as the library does, and refuses the same):
- tables put in explicit stacks (`jax.stack`) while the tables are auto-stacked too
  (`jax.auto_stack`);
- a table of an explicit stack that no feature looks up;
- a `stack_tables` call the tables' `stack` cannot say (`jax.stack_calls`, which `spec_from_jax`
  records from its `stacks`): one with no table, with a table no feature looks up, with a table
  already stacked (by another stack or an earlier call), or with a table twice;
- a feature whose output shape has fewer than two dimensions (a feature looking up a table the
  spec does not have is `jax-unknown-table`'s, TE699);
- two tables of one name;
- a table alone whose name is an explicit stack's, or two auto-stacked stacks of one name;
- `num_sc_per_device` other than 2 or 4, `global_device_count` below 1.

## Why is this bad?
The library either raises while the model is set up, or writes stacks that mix two tables' rows:
a checkpoint the serving side cannot unstack.

## What jax-tpu-embedding does
`stack_tables` raises `ValueError` for a table already stacked ("Table ... is already stacked in
group ...") -- `auto_stack_tables` stacks every table, so an explicit stack before or after it
raises -- and for a stack name already used ("Cannot use stack name ... since it's already used."):
a name counts as used once a table of another name is stacked under it, so when auto-stacking's
first stack of a name is one table of that very name, the second is made too, and
`create_proto_from_feature_specs` merges both into one stack of the first one's size. It raises
`KeyError` for a table of the stack that no feature uses. It stacks a call's tables after taking the
largest padded dimension among them (`ValueError` "max() arg is an empty sequence" for a call with
none), and `_verify_stack_tables` raises `ValueError` for a table twice in a call ("Table ... is
repeated in group ..."). A call without a stack name gets `_get_stack_name`'s (the names joined with
`_`). `_get_num_sc_per_device` raises `ValueError` ("Invalid num_sc_per_device") for a count that is
no TPU's, and no device pads to a multiple of 0 (`ZeroDivisionError`).
`prepare_feature_specs_for_training` and `create_proto_from_feature_specs` key tables and stacks by
name: two tables of one name, or a table alone named as a stack, become one stack without a word.
They count a feature's samples as `np.prod(output_shape[:-1])`, a float for an output shape of one
dimension or none, which `create_proto_from_feature_specs` refuses (`TypeError`).

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 auto_stack: true }
tables { name: "a" vocabulary_size: 1000 dim: 16 combiner: "sum" jax { stack: "ab" } }
tables { name: "b" vocabulary_size: 1000 dim: 16 combiner: "sum" jax { stack: "ab" } }
features { name: "fa" table: "a" input_shape: [128, 1] output_shape: [128, 16] }
features { name: "fb" table: "b" input_shape: [128, 1] output_shape: [128, 16] }
```

## Use instead
Auto-stack, or name the stacks -- not both:
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 1000 dim: 16 combiner: "sum" jax { stack: "ab" } }
tables { name: "b" vocabulary_size: 1000 dim: 16 combiner: "sum" jax { stack: "ab" } }
features { name: "fa" table: "a" input_shape: [128, 1] output_shape: [128, 16] }
features { name: "fb" table: "b" input_shape: [128, 1] output_shape: [128, 16] }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `stack_tables`, `_verify_stack_tables`, `_get_stack_name` and `auto_stack_tables`
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `_get_num_sc_per_device`, `prepare_feature_specs_for_training` and
  `create_proto_from_feature_specs`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.spec.stacking import problems
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    for problem in problems(spec, facts.jax_stacking):
        if problem.rule != "TE696":  # reported by its own rule (jax-unknown-table)
            continue
        yield Violation(problem.path, problem.message, problem.fix)
