"""A JAX table or feature shape with a size below 1, or a limit that lets no id through.

## What it does
Reports a table of a spec made from jax-tpu-embedding's objects (`tpuemb_cli.jax.spec_from_jax`)
whose `vocabulary_size` or embedding dimension is below 1, or whose own
`max_ids_per_partition` or `max_unique_ids_per_partition` is below 1; a feature with a dimension
below 1 in its `output_shape` or `input_shape` (a batch of 0 or -32); and a stack's limit (the
spec's `jax.stack_max_ids_per_partition` / `jax.stack_max_unique_ids_per_partition`: what the
script's `stack_to_max_ids_per_partition` functions return) below 1, or one naming a stack the
spec's stacking does not make (the stacks then keep the library's default).

## Why is this bad?
A table of 0 rows has nothing to look up: every id a feature sends is out of range. A feature of
a batch of 0 has no samples; a negative batch counts negative samples, so its stack's
`total_sample_count` is smaller than the rows its features take (`tpuemb compile --target jax`
refuses such a spec rather than write that proto). A limit of 0 lets no id go to a partition,
and the input buffers are sized from it.

## What jax-tpu-embedding does
`TableSpec`, `FeatureSpec`, `prepare_feature_specs_for_training` and the stacking check none of
these (`_verify_table_specs` checks names only): a feature's samples are `np.prod` of its output
shape but the last dimension, negative or not, and `create_proto_from_feature_specs` writes them
(jax-tpu-embedding 0.1.0 on CPU: a batch of -32 next to a feature of 32 in one stack gives a
`total_sample_count` of 0 and the other feature a `row_offset` of -32). A table's limits become its
stack's when it is alone in it (`_get_limits_for_stack`), and the C++ preprocessing then sizes the
COO buffer from `max_ids_per_partition` (`ComputeTheoreticalMaxCooBufferSize`) and `CHECK`s that the
size is positive: with 0 the process aborts at the first batch, on the TPU host, instead of raising.

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 0 dim: 16 jax { max_ids_per_partition: 0 } }
features { name: "f" table: "a" output_shape: [-32, 16] input_shape: [-32, 1] }
```

## Use instead
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 1000 dim: 16 jax { max_ids_per_partition: 256 } }
features { name: "f" table: "a" output_shape: [32, 16] input_shape: [32, 1] }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `_verify_table_specs` and `prepare_feature_specs_for_training`
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_get_limits_for_stack`
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc),
  `ComputeTheoreticalMaxCooBufferSize` and `ComputeCooBufferSizePerDevice`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import table_label, table_path
from tpuemb_cli.frontends.jax.spec.stacking import shape_problems
from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        label = table_label(index, table)
        for field, value, what in (
            ("vocabulary_size", table.vocabulary_size, "rows"),
            ("dim", table.dim, "columns"),
        ):
            if value < 1:
                yield Violation(
                    (*table_path(index), field),
                    f"{label} has {field} {value}: a table of no {what}, which the library "
                    "accepts and no lookup can use",
                    f"set {field} to at least 1",
                )
        for limit in ("max_ids_per_partition", "max_unique_ids_per_partition"):
            if table.jax.HasField(limit) and getattr(table.jax, limit) < 1:
                yield Violation(
                    (*table_path(index), "jax", limit),
                    f"{label} has {limit} {getattr(table.jax, limit)}: no id can go to a "
                    "partition (the library's preprocessing aborts sizing its buffers from a "
                    "max_ids of 0)",
                    f"set {limit} to at least 1 -- the library's default is 256",
                )
    for index, feature in enumerate(spec.features):
        for problem in shape_problems(index, feature):
            yield Violation(problem.path, problem.message, problem.fix)
    names = (
        set(facts.jax_stacking.groups)
        if spec.jax.stack_max_ids_per_partition or (spec.jax.stack_max_unique_ids_per_partition)
        else set()
    )
    for limit in ("stack_max_ids_per_partition", "stack_max_unique_ids_per_partition"):
        for stack, value in sorted(getattr(spec.jax, limit).items()):
            at = ("jax", limit, stack)
            if value < 1:
                yield Violation(
                    at,
                    f'stack "{shown(stack)}" has {limit} {value}: no id can go to a partition (the '
                    "library's preprocessing aborts sizing its buffers from a max_ids of 0)",
                    f"make the script's stack_to_{limit.removeprefix('stack_')} give at least 1",
                )
            elif stack not in names:
                yield Violation(
                    at,
                    f'{limit} names stack "{shown(stack)}", which the spec\'s stacking does not '
                    "make: the limit applies to no stack, and the stacks keep the default of 256",
                    "name a stack the tables are stacked into (tpuemb explain shows them)",
                )
