"""A JAX stack that allows more distinct ids per partition than ids.

## What it does
Reports a stack whose `max_unique_ids_per_partition` is above its `max_ids_per_partition`.

## Why is this bad?
Distinct ids are some of the ids: a partition never receives more of them than ids. A larger
unique limit is never reached; it usually means the two limits were swapped, or one was raised and
not the other -- and the smaller one is the one the input is cut to.

## What jax-tpu-embedding does
Neither `TableSpec` nor the stacking checks the two limits against each other; the preprocessing
reads each on its own.

## Example
```pbtxt
stacked_table_specs { stack_name: "a" max_ids_per_partition: 64 max_unique_ids_per_partition: 256 }
```

## Use instead
```pbtxt
stacked_table_specs { stack_name: "a" max_ids_per_partition: 256 max_unique_ids_per_partition: 64 }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_get_limits_for_stack`
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `update_preprocessing_parameters` (the limits as the statistics measure them, each on its
  own)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import stack_label, stack_path
from tpuemb_cli.model.findings import Violation


def check_jax(spec: Any) -> Iterator[Violation]:
    for index, stack in enumerate(spec.stacked_table_specs):
        ids, unique = stack.max_ids_per_partition, stack.max_unique_ids_per_partition
        if ids < 1 or unique <= ids:
            continue  # TE687 reports a limit below 1
        yield Violation(
            (*stack_path(index), "max_unique_ids_per_partition"),
            f"{stack_label(index, stack)} allows {unique} distinct ids per partition but only "
            f"{ids} ids (max_ids_per_partition): the unique limit is never reached",
            "check which limit is meant: max_unique_ids_per_partition is at most "
            "max_ids_per_partition",
        )
