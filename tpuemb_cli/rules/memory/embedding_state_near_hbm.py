"""The tables' parameters and optimizer state take more than 80% of the HBM of a core.

## What it does
On a known chip, computes what the embedding tables take on the fullest core (the model of
[TE601](#te601-embedding-state-exceeds-hbm): `sum over tables of ceil(vocabulary_size /
num_tensor_cores) x dimension x state arrays x 4` bytes) and reports it when it is **more than
80% of a core's HBM** and not more than all of it (TE601 reports that).

On a spec with a `sparse_core` section, the same against the HBM of a **chip**, with the
variables `TPUEmbeddingV2` creates (TE601 says how they are counted).

On a JAX SparseCore `EmbeddingSpecProto`, the same against the HBM of a **device** (a chip's HBM
over its devices), with what jax-tpu-embedding allocates on each: every stack's variables (its
SparseCores' rows x `stack_embedding_dim` x 4 bytes, times 1 + the 0.2.0 optimizer's slots) and
its input buffers (the library's theoretical maximum COO buffer, `RoundUpTo(max_ids_per_partition,
8) x SparseCores a device x SparseCores` elements, for ids, samples and gains, and the row
pointers). It runs when the chip's SparseCores per device are known (`docs/memory.md`); the
finding is placed at the first stack's `num_sparsecores`.

## Why is this bad?
The figure is a lower bound of what the program needs. The rest of the HBM holds activations, the
deduplication and gradient buffers the embedding engine sizes from the batch, XLA's working set,
and hot-id replicas; none of these follow from the config. Leaving less than a fifth for them
makes an out-of-memory failure at start-up likely, and one more table or a larger batch certain.

## What TensorFlow does
Allocation fails at start-up when the whole program does not fit.

## Example
```pbtxt
# with --tpu v5e: 16 GB per core; the table takes 13.44 GB (84%) on each of 8 cores
num_tensor_cores: 8
table_descriptor { name: "ids" vocabulary_size: 560000000 dimension: 16
  optimization_parameters { adagrad {} } }
```

## Use instead
```pbtxt
num_tensor_cores: 16
table_descriptor { name: "ids" vocabulary_size: 560000000 dimension: 16
  optimization_parameters { adagrad {} } }
```

## Fix safety
No automatic fix.

## Options
The chip, as for TE601. Select it off (`ignore = ["TE602"]`) when the program is known to need
little besides the tables.

## References
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc),
  `ComputeTheoreticalMaxCooBufferSize` (a JAX spec's input buffers)
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `init_embedding_variables` (a JAX spec's stacked variables)
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `TPUEmbeddingV2._create_variables`
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  `RetrieveAllTPUEmbeddingParameters`
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.memory import WARNING_PERCENT, sizes
from tpuemb_cli.rules.base import Config, Fit
from tpuemb_cli.rules.lib.fit import budget


def check_memory(config: Config, fit: Fit) -> Iterator[Violation]:
    fill = budget(config, fit)
    # In integers, so that "above 80%" is exact at any size.
    if fill.used * 100 > fill.capacity * WARNING_PERCENT and fill.used <= fill.capacity:
        used, available = sizes(fill.used, fill.capacity)
        yield Violation(
            fill.path,
            f"{fill.taken(used)}: {fill.used / fill.capacity:.0%} of the {available} of HBM of "
            f"a {fit.chip.name} {fill.unit}, which leaves little for {fill.others}",
            fill.remedy(fill.capacity * WARNING_PERCENT // 100),
        )
