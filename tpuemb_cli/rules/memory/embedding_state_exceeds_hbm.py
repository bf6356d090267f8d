"""The tables' parameters and optimizer state alone do not fit in the HBM of a core.

## What it does
On a known chip, computes what the embedding tables take on the fullest core --
`sum over tables of ceil(vocabulary_size / num_tensor_cores) x dimension x state arrays x 4`
bytes, where the state arrays are the parameters, the optimizer's slots and the gradient
accumulator (`docs/memory.md` has the model, which `make test-tf` checks against TensorFlow) --
and reports it when it is **more than the HBM of one core** (the chip's HBM divided by the
TensorFlow devices on it).

On a spec with a `sparse_core` section, the same against the HBM of a **chip**, with the
variables `TPUEmbeddingV2` creates: every stacked table's parameters and slot variables, padded as
the SparseCore layout says (`rows per SparseCore x padded width x (1 + slots) x 4` bytes a stack
and SparseCore, times the SparseCores of a chip; `docs/memory.md`). The finding is placed at
`topology.num_hosts`.

On a JAX SparseCore `EmbeddingSpecProto`, the same against the HBM of a **device** (a chip's HBM
over its devices), with what jax-tpu-embedding allocates on each: every stack's variables (its
SparseCores' rows x `stack_embedding_dim` x 4 bytes, times 1 + the 0.2.0 optimizer's slots) and
its input buffers (the library's theoretical maximum COO buffer, `RoundUpTo(max_ids_per_partition,
8) x SparseCores a device x SparseCores` elements, for ids, samples and gains, and the row
pointers). It runs when the chip's SparseCores per device are known (`docs/memory.md`); the
finding is placed at the first stack's `num_sparsecores`.

## Why is this bad?
This is a lower bound: activations, the embedding engine's buffers and XLA's working set need HBM
too. A config whose tables alone exceed a core's HBM cannot run on that slice.

## What TensorFlow does
The job fails at start-up, when the TPU embedding engine allocates the tables, after the slice has
been provisioned and the program built.

## Example
```pbtxt
# with --tpu v5e: 16 GB per core
num_tensor_cores: 4
table_descriptor { name: "ids" vocabulary_size: 400000000 dimension: 32
  optimization_parameters { adam {} } }
```

## Use instead
```pbtxt
num_tensor_cores: 64
table_descriptor { name: "ids" vocabulary_size: 400000000 dimension: 32
  optimization_parameters { adam {} } }
```

## Fix safety
No automatic fix: more cores, a smaller table or a cheaper optimizer are the user's choices.

## Options
The chip: `--tpu CHIP`, `tpu = "v5p"` in `[tool.tpuemb]`, or `topology.accelerator` in a spec.
The rule does not run without one, nor on a chip whose HBM is not known (`docs/memory.md`).

## References
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc),
  `ComputeTheoreticalMaxCooBufferSize` (a JAX spec's input buffers)
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `init_embedding_variables` (a JAX spec's stacked variables)
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `TPUEmbeddingV2._create_variables` (a SparseCore spec's stacked tables and slot variables)
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `RetrieveAllTPUEmbeddingParameters` (the shape of every table's shard and state arrays)
- [`tensorflow/core/tpu/tpu_embedding_optimization_parameters_utils.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/tpu_embedding_optimization_parameters_utils.cc),
  `GetOptimizationAlgorithmStateVariables`
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.memory import sizes
from tpuemb_cli.rules.base import Config, Fit
from tpuemb_cli.rules.lib.fit import budget


def check_memory(config: Config, fit: Fit) -> Iterator[Violation]:
    fill = budget(config, fit)
    if fill.used > fill.capacity:
        used, available = sizes(fill.used, fill.capacity)
        yield Violation(
            fill.path,
            f"{fill.taken(used)}: more than the {available} of HBM of a {fit.chip.name} "
            f"{fill.unit}",
            fill.remedy(fill.capacity),
        )
