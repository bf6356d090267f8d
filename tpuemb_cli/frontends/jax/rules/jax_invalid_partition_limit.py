"""A JAX stack that lets no id through a partition.

## What it does
Reports a stack whose `max_ids_per_partition` or `max_unique_ids_per_partition` is below 1.

## Why is this bad?
The limits say how many ids (and distinct ids) one SparseCore may send to one partition of the
stacked table in a step; the input buffers are sized from them. With 0, no id fits: every lookup
is dropped, or the buffers cannot be sized at all.

## What jax-tpu-embedding does
It does not check the limits when it stacks (`FeatureSpec`/`TableSpec` take any integer). The
C++ preprocessing sizes the COO buffer from `max_ids_per_partition`
(`ComputeTheoreticalMaxCooBufferSize`) and then `CHECK`s that the size is positive: with 0 the
process aborts at the first batch, on the TPU host.

## Example
```pbtxt
stacked_table_specs { stack_name: "a" max_ids_per_partition: 0 max_unique_ids_per_partition: 0 }
```

## Use instead
```pbtxt
stacked_table_specs { stack_name: "a" max_ids_per_partition: 256 max_unique_ids_per_partition: 256 }
```

## Fix safety
No automatic fix: the limits depend on the input data (the library's preprocessing statistics
measure them).

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc),
  `ComputeTheoreticalMaxCooBufferSize` and `ComputeCooBufferSizePerDevice` (`CHECK(... > 0
  ...)`)
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_get_limits_for_stack`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import stack_label, stack_path
from tpuemb_cli.model.findings import Violation

LIMITS = ("max_ids_per_partition", "max_unique_ids_per_partition")


def check_jax(spec: Any) -> Iterator[Violation]:
    for index, stack in enumerate(spec.stacked_table_specs):
        for name in LIMITS:
            value = getattr(stack, name)
            if value >= 1:
                continue
            yield Violation(
                (*stack_path(index), name),
                f"{stack_label(index, stack)} has {name} {value}: no id can go to a partition "
                "(the library's preprocessing aborts sizing its buffers from a max_ids of 0)",
                f"set {name} to at least 1 -- the library's default is 256; its preprocessing "
                "statistics measure what the input needs",
            )
