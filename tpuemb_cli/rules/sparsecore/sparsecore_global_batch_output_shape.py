"""A SparseCore feature whose `output_shape` looks like the global batch, not a replica's.

## What it does
Reports a feature of a SparseCore spec, on a topology of more than one replica (replicas:
`num_hosts` x `cores_per_host` / `num_cores_per_replica`), whose first output dimension is:

- with `topology.per_replica_batch_size` set: exactly that batch times the replicas -- the global
  batch;
- without it: exactly the replicas times the first output dimension of another feature of the
  spec -- one feature given the global batch, the other the per-replica one.

Nothing else is reported: a first dimension that is merely large, or a multiple of the replicas,
is a legitimate per-replica batch as often as not. A flattened sequence feature (`output_shape:
[batch * length]`) whose length happens to equal the replica count can match the second test.

## Why is this bad?
`FeatureConfig.output_shape` is per replica. Given the global batch, every replica's SparseCores
plan for the replica count times the samples each replica feeds.

## What TensorFlow does
TPUEmbeddingV2 takes the samples of a feature on a replica from `output_shape` alone
(`_stack_tables_with_same_table_dim_and_optimizer`): the layouts it writes into checkpoints record
a `per_sparse_core_batch_size` of the global batch over the SparseCores of a chip, the
activations come back with the global batch's rows on every replica, and the input pipeline's
per-replica batch no longer matches the sample count of the SparseCore input ops.

## Example
```yaml
features: [{name: watched, table: video, output_shape: [1024]}]
topology: {num_hosts: 2, cores_per_host: 4, per_replica_batch_size: 128, accelerator: v5p}
sparse_core: {}
```

## Use instead
```yaml
features: [{name: watched, table: video, output_shape: [128]}]
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `_stack_tables_with_same_table_dim_and_optimizer` (`output_samples` from
  `feature.output_shape`), `TPUEmbeddingV2.__init__` (`num_partitions` is
  `strategy.num_replicas_in_sync`)
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `FeatureConfig` (`output_shape`: "the feature feeding to the `embedding.enqueue` has to match
  the shape" -- and each replica enqueues its own batch)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.sparsecore_topology import is_sparsecore, replicas
from tpuemb_cli.rules.lib.spec_tables import feature_label
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if not is_sparsecore(spec):
        return
    count = replicas(spec)
    if count is None or count < 2:
        return
    batch = spec.topology.per_replica_batch_size
    firsts = {
        index: feature.output_shape[0]
        for index, feature in enumerate(spec.features)
        if feature.output_shape and feature.output_shape[0] > 0
    }
    for index, first in firsts.items():
        path = ("features", index, "output_shape", 0)
        label = feature_label(spec, index)
        if batch > 0:
            if first == batch * count:
                yield Violation(
                    path,
                    f"{label}'s output_shape starts with {first}, the global batch "
                    f"(per_replica_batch_size {batch} x {count} replicas); output_shape is per "
                    "replica, so each replica's SparseCores plan for the global batch",
                    f"use the per-replica batch: {batch}",
                )
            continue
        other = next((i for i, size in firsts.items() if size * count == first), None)
        if other is not None:
            size = firsts[other]
            yield Violation(
                path,
                f"{label}'s output_shape starts with {first}, {count} replicas x the {size} of "
                f"{feature_label(spec, other)}: it looks like the global batch; output_shape is "
                "per replica",
                f"use the per-replica batch ({size}), or set topology.per_replica_batch_size",
            )
