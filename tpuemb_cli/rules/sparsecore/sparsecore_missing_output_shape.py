"""A SparseCore feature without `output_shape`: TPUEmbeddingV2 fails when it is built.

## What it does
Reports every feature of a SparseCore spec (one with a `sparse_core` section) that has no
`output_shape`.

## Why is this bad?
TPUEmbeddingV2 takes a feature's samples from its `output_shape` alone, when it is constructed:
unlike TPUEmbedding, it never derives the shape from a batch size, an input shape or
`max_sequence_length`. The training script fails before its first step.

## What TensorFlow does
`TPUEmbeddingV2.__init__` calls `_stack_tables_with_same_table_dim_and_optimizer`, which
multiplies out every feature's `output_shape` (`functools.reduce(operator.mul,
feature.output_shape)`). `FeatureConfig` stores a missing shape as `TensorShape(None)`, so this
raises `ValueError: Cannot iterate over a shape with unknown rank.`, with or without
`max_sequence_length` and `topology.per_replica_batch_size`. (An empty shape raises `TypeError:
reduce() of empty iterable with no initial value`; `spec_from_tf` records both as no shape.)

## Example
```yaml
features: [{name: watched, table: video, max_sequence_length: 20}]
topology: {num_hosts: 1, cores_per_host: 4, per_replica_batch_size: 16, accelerator: v5p}
sparse_core: {}
```

## Use instead
```yaml
features: [{name: watched, table: video, max_sequence_length: 20, output_shape: [16, 20]}]
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `_stack_tables_with_same_table_dim_and_optimizer` (the `functools.reduce` over
  `feature.output_shape`), called from `TPUEmbeddingV2.__init__`
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `FeatureConfig.__init__` (`self.output_shape = TensorShape(output_shape)`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.sparsecore_topology import is_sparsecore
from tpuemb_cli.rules.lib.spec_tables import feature_label
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if not is_sparsecore(spec):
        return
    batch = spec.topology.per_replica_batch_size
    for index, feature in enumerate(spec.features):
        if feature.output_shape:
            continue
        if batch > 0:
            shape = [batch, feature.max_sequence_length] if feature.max_sequence_length else [batch]
            fix = f"set output_shape: {shape} (the per-replica batch"
            fix += ", by max_sequence_length)" if feature.max_sequence_length else ")"
        else:
            fix = "set output_shape to the per-replica shape of its lookups, e.g. [batch]"
        yield Violation(
            ("features", index),
            f"{feature_label(spec, index)} has no output_shape; TPUEmbeddingV2 reads a feature's "
            "samples from output_shape alone and fails when it is built (ValueError: Cannot "
            "iterate over a shape with unknown rank.)",
            fix,
        )
