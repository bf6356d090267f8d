"""A SparseCore feature whose samples do not divide among the SparseCores of a chip.

## What it does
Reports a feature of a SparseCore spec whose samples per replica -- the product of its
`output_shape` -- are not a multiple of the SparseCores per chip. The count is
`topology.sparse_cores_per_chip`, else the chip table's for `topology.accelerator` (v5p and
tpu7x: 4); when neither is known, the rule says nothing.

## Why is this bad?
Each replica's samples are split evenly across the SparseCores of its chip. TensorFlow divides
with integer division everywhere: the layouts it writes into checkpoints record
`per_sparse_core_batch_size` rounded down (6 samples on 4 SparseCores: 1), the input pipeline
splits rows by that rounded size, and the SparseCore input ops refuse the stacked table's count.

## What TensorFlow does
TPUEmbeddingV2 is built without complaint (construction never checks it). At the first step,
`_preprocess_features` passes `sample_count // num_sc_per_chip` on, and the SparseCore input
kernels (`tensorflow/core/tpu/kernels/sparse_core_preprocess_ops.cc`, run on a TPU host) fail
with `InvalidArgumentError: sample_count <n> is not divisible by the number of sparsecores per
chip <k>` (`GetMinibatchesInCsrWithPhysicalReplica`); `ConvertToListOfSparseCoreCooTensors`
divides the same way and assigns rows past the last SparseCore. The stacked table's count is the
sum of its features', so a feature that divides never makes a stack that does not.

## Example
```yaml
features: [{name: watched, table: video, output_shape: [6]}]
topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}
sparse_core: {}
```

## Use instead
```yaml
features: [{name: watched, table: video, output_shape: [8]}]
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `_stack_tables_with_same_table_dim_and_optimizer` (`output_samples` per table),
  `_preprocess_inputs_and_weights_to_list_of_coo_tensors` and
  `_get_csr_wrapped_coo_from_sorted_coo_tensor` (`// num_sc_per_chip`)
- [`tensorflow/core/tpu/kernels/sparse_core_preprocess_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/kernels/sparse_core_preprocess_ops.cc),
  `GetMinibatchesInCsrWithPhysicalReplicaOp` (the divisibility check) and
  `ConvertToListOfSparseCoreCooTensorsOp` (`per_sc_sample_count_ = sample_count_ /
  num_sc_per_chip_`)
"""

from collections.abc import Iterator
from math import gcd, prod

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.sparsecore_topology import is_sparsecore, samples, sparse_cores_per_chip
from tpuemb_cli.rules.lib.spec_tables import feature_label
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if not is_sparsecore(spec):
        return
    cores = sparse_cores_per_chip(spec)
    if cores is None:
        return
    for index, feature in enumerate(spec.features):
        if not feature.output_shape or any(size < 1 for size in feature.output_shape):
            continue  # TE661 and TE723 report those shapes
        count = samples(feature)
        if count % cores == 0:
            continue
        shape = list(feature.output_shape)
        yield Violation(
            ("features", index, "output_shape"),
            f"{feature_label(spec, index)} has {count} samples a replica (output_shape "
            f"{shape}), not a multiple of the {cores} SparseCores a chip: TensorFlow rounds "
            f"the samples of a SparseCore down to {count // cores}, and the SparseCore input ops "
            "fail (InvalidArgumentError: sample_count ... is not divisible by the number of "
            "sparsecores per chip)",
            f"make the per-replica batch a multiple of {cores}, e.g. output_shape "
            f"{_divisible(shape, cores)}",
        )


def _divisible(shape: list[int], cores: int) -> list[int]:
    """``shape`` with the smallest larger first dimension that makes its samples divide: the
    next multiple of ``cores / gcd(rest, cores)`` (worked out, not searched for: a search is as
    long as the SparseCore count, which the document sets)."""
    rest = prod(shape[1:])
    step = cores // gcd(rest, cores)
    return [(shape[0] // step + 1) * step, *shape[1:]]
