"""A stacked JAX table's quantization or suggested COO buffer, which stacking drops.

## What it does
Reports a table of a spec made from jax-tpu-embedding's objects (`tpuemb_cli.jax.spec_from_jax`)
that sets `quantization` (its `TableSpec.quantization_config`) or
`jax.suggested_coo_buffer_size_per_device`, when the library stacks it: every table with
`jax.auto_stack` (a table alone in its group too: auto-stacking makes it a stack of one), a
table of an explicit stack (`jax.stack`) otherwise.

## Why is this bad?
The setting is silently lost: a quantized table is looked up and trained in full precision, and
a suggested input buffer gives way to the largest the limits allow (more device memory, or the
memory a measured suggestion was meant to save). Nothing says so: the table keeps its own
setting, only its stack (what training reads) has none.

## What jax-tpu-embedding does
`stack_tables`, which `auto_stack_tables` calls for each group, builds the stack's
`StackedTableSpec` in `_stack_feature_specs` from the stack name, sizes, first table's optimizer
and combiner, sample count and limits -- without `quantization_config` or
`suggested_coo_buffer_size_per_device`, so both are None, even for a stack of one table.
`prepare_feature_specs_for_training` copies both for a table it leaves alone. The lookup
(`tpu_sparse_dense_matmul`) and the input preprocessing read them from the `StackedTableSpec`
only. jax-tpu-embedding 0.1.0, run on CPU, leaves both None after `auto_stack_tables` and
`stack_tables`, and keeps them without stacking. 0.2.0, run on CPU, keeps a stack's
`quantization_config` and still drops its `suggested_coo_buffer_size_per_device`; tpuemb judges
as 0.1.0, its default release (`compile --jax-version 0.2.0` refuses a quantized table), and the
quantization finding names the release.

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 auto_stack: true }
tables {
  name: "a" vocabulary_size: 1000 dim: 16 combiner: "sum"
  quantization { num_buckets: 256 lower: -1 upper: 1 }
  jax { optimizer { type: "SGDOptimizerSpec" learning_rate { constant: 0.1 } } }
}
```

## Use instead
Leave the table out of stacking (no `auto_stack_tables`, or stack the other tables by hand with
`stack_tables`): `prepare_feature_specs_for_training` keeps its settings. Or, for the buffer,
set the stack's size after stacking with `embedding.update_preprocessing_parameters`.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_stack_feature_specs`
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `prepare_feature_specs_for_training`, `tpu_sparse_dense_matmul` and
  `update_preprocessing_parameters`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import stacks, table_label, table_path
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    how = "auto_stack_tables" if spec.jax.auto_stack else "stack_tables"
    for name, members in stacks(facts).items():
        alone = " (alone in it)" if len(members) == 1 else ""
        for index in members:
            table = spec.tables[index]
            label = table_label(index, table)
            if table.HasField("quantization"):
                yield Violation(
                    (*table_path(index), "quantization"),
                    f'{label} is quantized, but {how} puts it in stack "{name}"{alone} with no '
                    "quantization_config (jax-tpu-embedding 0.1.0; 0.2.0 keeps it): its lookups "
                    "and training are in full precision, without a word",
                    "leave the table out of stacking (prepare_feature_specs_for_training keeps "
                    "its quantization), or drop the quantization",
                )
            if table.jax.HasField("suggested_coo_buffer_size_per_device"):
                yield Violation(
                    (*table_path(index), "jax", "suggested_coo_buffer_size_per_device"),
                    f"{label} suggests a COO buffer of "
                    f"{table.jax.suggested_coo_buffer_size_per_device:,} per device, but {how} "
                    f'puts it in stack "{name}"{alone} with none: the preprocessing allocates the '
                    "largest buffer the stack's limits allow instead, without a word",
                    "set the stack's buffer after stacking (update_preprocessing_parameters), or "
                    "leave the table out of stacking",
                )
