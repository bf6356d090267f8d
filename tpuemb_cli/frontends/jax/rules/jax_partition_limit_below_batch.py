"""A JAX stack whose id limit is below what a full batch sends each partition.

## What it does
Reports a stack whose `max_ids_per_partition` is below the fewest ids some partition must
receive when every sample carries the ids its `input_shape` holds: the stack's ids (the product
of each feature's `input_shape`), split over its `num_sparsecores` SparseCores, then by each
SparseCore over as many partitions -- `ceil(ceil(ids / n) / n)` with `n = num_sparsecores`.

## Why is this bad?
Each SparseCore sends its samples' ids to the partitions of the stacked table, at most
`max_ids_per_partition` to each. However evenly the ids spread, some partition gets at least the
bound above: a limit below it is exceeded by every full batch.

## What jax-tpu-embedding does
Nothing checks the limits against the batch. At run time the preprocessing drops the ids over the
limit (with id dropping allowed) and the lookups silently miss them, or fails; the library's
advice is to measure the limits with its preprocessing statistics and
`update_preprocessing_parameters`. Inputs that carry fewer ids than their shape (ragged inputs)
need less: this rule then overstates the need, which is why it is a warning.

## Example
```pbtxt
stacked_table_specs {
  max_ids_per_partition: 4 num_sparsecores: 8
  table_specs { feature_specs { input_shape: [4096, 8] output_shape: [4096, 16] } }
}
```
(32,768 ids: 4,096 a SparseCore, at least 512 to some partition.)

## Use instead
```pbtxt
  max_ids_per_partition: 512 num_sparsecores: 8
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc),
  `ComputeCooBufferSizePerDevice` (buffers sized from `max_ids_per_partition`)
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `update_preprocessing_parameters`
"""

from collections.abc import Iterator
from math import prod
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import stack_label, stack_path
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import count


def check_jax(spec: Any) -> Iterator[Violation]:
    for index, stack in enumerate(spec.stacked_table_specs):
        cores, limit = stack.num_sparsecores, stack.max_ids_per_partition
        if cores < 1 or limit < 1:
            continue  # TE681, TE687
        shapes = [f.input_shape for t in stack.table_specs for f in t.feature_specs]
        ids = sum(prod(shape) for shape in shapes if shape and min(shape) > 0)
        per_core = -(-ids // cores)
        need = -(-per_core // cores)
        if limit >= need:
            continue
        yield Violation(
            (*stack_path(index), "max_ids_per_partition"),
            f"{stack_label(index, stack)} allows {limit} ids per partition, but its features' "
            f"input shapes hold {count(ids)} ids a batch: {count(per_core)} a SparseCore, of "
            f"which some partition of the {cores} gets at least {count(need)}",
            f"raise max_ids_per_partition to at least {count(need)} (the library's preprocessing "
            "statistics measure what the input needs)",
        )
