"""A JAX feature whose offsets in its stack are not its table's, or lie outside the stack.

## What it does
Reports a feature whose samples -- from `row_offset`, the product of its `output_shape` but the
last dimension -- lie outside its stack's `total_sample_count` or over another feature's; whose
`col_offset` is not its table's `row_offset_in_shard` times the stack's `num_sparsecores`; or
whose `col_shift` is not its table's `shard_rotation`. Also a stack whose
`total_sample_count` is not the sum of its features' samples.

## Why is this bad?
The stack's lookups run as one: a feature's ids are moved to its table's rows by `col_offset`
and rotated by `col_shift`, and its samples fill rows `row_offset` on of the stack's
activations. Offsets other than the table's look the ids up in another table's rows; samples
outside the stack, or over another feature's, read another feature's activations.

## What jax-tpu-embedding does
`_stack_feature_specs` gives each feature `row_offset` = the samples of the features before it,
`col_offset = row_offset_in_shard * num_sc`, `col_shift = shard_rotation`, and the stack
`total_sample_count` = all its features' samples; `prepare_feature_specs_for_training` does the
same for a table alone (offsets and shift 0). `_get_activation_for_feature` slices each feature's
activations by `row_offset`, without a check.

## Example
```pbtxt
stacked_table_specs {
  total_sample_count: 256 num_sparsecores: 8
  table_specs {
    table_name: "b" row_offset_in_shard: 128 shard_rotation: 4
    feature_specs {
      feature_name: "fb" output_shape: [256, 16] row_offset: 0 col_offset: 128 col_shift: 4
    }
  }
}
```

## Use instead
```pbtxt
    feature_specs {
      feature_name: "fb" output_shape: [256, 16] row_offset: 0 col_offset: 1024 col_shift: 4
    }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_stack_feature_specs` (`FeatureIdTransformation`)
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `prepare_feature_specs_for_training` and `_get_activation_for_feature`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.stacks import (
    feature_label,
    feature_path,
    samples,
    stack_label,
    stack_path,
)
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.lib.overlaps import first_overlaps


def check_jax(spec: Any) -> Iterator[Violation]:
    for s, stack in enumerate(spec.stacked_table_specs):
        yield from _stack(s, stack)


def _stack(s: int, stack: Any) -> Iterator[Violation]:
    where, total = stack_label(s, stack), stack.total_sample_count
    features = [
        (t, table, f, feature)
        for t, table in enumerate(stack.table_specs)
        for f, feature in enumerate(table.feature_specs)
    ]
    counts = [samples(feature) if feature.output_shape else 0 for *_, feature in features]
    spans = [
        (item[3].row_offset, item[3].row_offset + n)
        for item, n in zip(features, counts, strict=True)
    ]
    # The features within the stack's samples, each against the earlier ones (one pass: a stack
    # may hold tens of thousands of features).
    inside = [i for i, (first, end) in enumerate(spans) if first >= 0 and end <= total]
    over = dict(zip(inside, first_overlaps([spans[i] for i in inside]), strict=True))
    for i, (t, table, f, feature) in enumerate(features):
        label, path = feature_label(f, feature), feature_path(s, t, f)
        count, (first, end) = counts[i], spans[i]
        if i not in over:
            yield Violation(
                (*path, "row_offset"),
                f"{label}'s {count} samples from row_offset {first} lie outside {where}'s "
                f"{total} samples (total_sample_count)",
                "set row_offset to the samples of the stack's features before it",
            )
        elif (earlier := over[i]) is not None:
            other = inside[earlier]
            o_first, o_end = spans[other]
            yield Violation(
                (*path, "row_offset"),
                f"{label}'s samples {first} to {end - 1} lie over samples {o_first} to "
                f"{o_end - 1} of {feature_label(features[other][2], features[other][3])}",
                "set row_offset to the samples of the stack's features before it",
            )
        if stack.num_sparsecores >= 1:
            wanted = table.row_offset_in_shard * stack.num_sparsecores
            if feature.col_offset != wanted:
                yield Violation(
                    (*path, "col_offset"),
                    f"{label} has col_offset {feature.col_offset}, but its table starts at "
                    f"row {table.row_offset_in_shard} of each of {stack.num_sparsecores} "
                    f"shards: col_offset {wanted}",
                    f"set col_offset to {wanted}",
                )
        if feature.col_shift != table.shard_rotation:
            yield Violation(
                (*path, "col_shift"),
                f"{label} has col_shift {feature.col_shift}, but its table's shard_rotation "
                f"is {table.shard_rotation}",
                f"set col_shift to {table.shard_rotation}",
            )
    counted = sum(counts)
    if stack.table_specs and counted != total:
        yield Violation(
            (*stack_path(s), "total_sample_count"),
            f"{where} has total_sample_count {total}, but its features have {counted} samples",
            f"set total_sample_count to {counted}",
        )
