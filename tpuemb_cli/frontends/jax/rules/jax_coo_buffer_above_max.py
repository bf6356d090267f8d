"""A JAX table's suggested COO buffer size above the most its limits allow.

## What it does
Reports a table of a spec made from jax-tpu-embedding's objects (`tpuemb_cli.jax.spec_from_jax`)
that is alone (in no stack: `prepare_feature_specs_for_training` gives it a stack of its own)
and whose `suggested_coo_buffer_size_per_device`, rounded up to 8 x `num_sc_per_device`, is
larger than the theoretical maximum COO buffer its `max_ids_per_partition` implies:
`round_up(max_ids_per_partition, 8) x num_sc_per_device x global_device_count x
num_sc_per_device`.

## Why is this bad?
The library does not clamp the suggestion to the maximum (the maximum moves with
`max_ids_per_partition`, and a silent clamp would move the buffer with it): it stops the process
the first time it preprocesses a batch, with no Python exception to catch.

## What jax-tpu-embedding does
`prepare_feature_specs_for_training` copies a table alone's `suggested_coo_buffer_size_per_device`
into its `StackedTableSpec` (`stack_tables` and `auto_stack_tables` leave it out). Input
preprocessing (`ComputeCooBufferSizePerDevice`) computes the theoretical maximum
(`ComputeTheoreticalMaxCooBufferSize`, minibatching off) and, given a suggestion,
`MayBeUpdateBufferSize` rounds it up to `TPU_VECTOR_REGISTER_ALIGNMENT_SIZE` (8) x
`num_scs_per_device` and aborts: `Check failed: suggested_value <= theoretical_max`
("Suggested Coo Buffer Size is larger than the theoretical max for table ...").

## Example
On 4 devices of 2 SparseCores, the default 256 ids per partition allow 256 x 2 x 8 = 4,096:
```pbtxt
jax { global_device_count: 4 num_sc_per_device: 2 }
tables {
  name: "c" vocabulary_size: 77 dim: 8
  jax { suggested_coo_buffer_size_per_device: 1000000 }
}
```

## Use instead
```pbtxt
jax { global_device_count: 4 num_sc_per_device: 2 }
tables {
  name: "c" vocabulary_size: 77 dim: 8
  jax { suggested_coo_buffer_size_per_device: 2000 }
}
```
Or raise `max_ids_per_partition`; `embedding.update_preprocessing_parameters` sets a size the
preprocessing statistics measured.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc),
  `MayBeUpdateBufferSize`, `ComputeTheoreticalMaxCooBufferSize` and
  `ComputeCooBufferSizePerDevice`
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `prepare_feature_specs_for_training`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import DEFAULT_LIMIT, stacks, table_label, table_path
from tpuemb_cli.frontends.jax.spec.memory import theoretical_max_coo_buffer_size
from tpuemb_cli.frontends.jax.spec.stacking import ALIGNMENT, round_up
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    jax = spec.jax
    per_device = jax.num_sc_per_device
    if jax.global_device_count < 1 or per_device < 1:
        return  # TE681 and the like say so
    stacked = {index for members in stacks(facts).values() for index in members}
    for index, table in enumerate(spec.tables):
        own = table.jax
        if index in stacked or not own.HasField("suggested_coo_buffer_size_per_device"):
            continue
        limit = (
            own.max_ids_per_partition if own.HasField("max_ids_per_partition") else DEFAULT_LIMIT
        )
        if limit < 1:
            continue  # jax-zero-size
        suggested = round_up(own.suggested_coo_buffer_size_per_device, ALIGNMENT * per_device)
        most = theoretical_max_coo_buffer_size(limit, jax.global_device_count, per_device)
        if suggested <= most:
            continue
        yield Violation(
            (*table_path(index), "jax", "suggested_coo_buffer_size_per_device"),
            f"{table_label(index, table)} suggests a COO buffer of "
            f"{own.suggested_coo_buffer_size_per_device:,} per device ({suggested:,} rounded up "
            f"to 8 x {per_device} SparseCores), above the {most:,} its max_ids_per_partition "
            f"{limit} allows on {jax.global_device_count} device(s): the library's input "
            "preprocessing aborts the process (Check failed: suggested_value <= "
            "theoretical_max)",
            f"suggest at most {most:,}, or raise max_ids_per_partition",
        )
