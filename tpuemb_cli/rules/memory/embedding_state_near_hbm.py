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
from typing import TYPE_CHECKING

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.memory import WARNING_PERCENT, Memory, sizes
from tpuemb_cli.rules.base import Config, Fit
from tpuemb_cli.rules.lib.fit import (
    JAX_PATH,
    SPARSECORE_PATH,
    jax_remedy,
    jax_taken,
    remedy,
    sparsecore_remedy,
    sparsecore_taken,
    taken,
)
from tpuemb_cli.spec.jax_memory import JaxMemory

if TYPE_CHECKING:
    from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory


def check_memory(config: Config, fit: Fit) -> Iterator[Violation]:
    if isinstance(fit.memory, JaxMemory):  # a JAX spec: jax-tpu-embedding's, per device
        yield from _on_jax(fit.memory, fit)
        return
    if not isinstance(fit.memory, Memory):  # a SparseCore spec: TPUEmbeddingV2's variables
        yield from _on_sparsecores(fit.memory, fit)
        return
    hbm = fit.chip.hbm_per_core
    assert hbm is not None  # the engine runs memory rules only on chips whose HBM is known
    per_core = fit.memory.per_core
    # In integers, so that "above 80%" is exact at any size.
    if per_core * 100 > hbm * WARNING_PERCENT and per_core <= hbm:
        share = f"{per_core / hbm:.0%}"
        used, available = sizes(per_core, hbm)
        yield Violation(
            ("num_tensor_cores",),
            f"{taken(fit, used)}: {share} of the {available} of HBM of a {fit.chip.name} core, "
            "which leaves little for activations, buffers and XLA's working set",
            remedy(config, fit, hbm * WARNING_PERCENT // 100),
        )


def _on_sparsecores(memory: SparseCoreMemory, fit: Fit) -> Iterator[Violation]:
    hbm = fit.chip.hbm_bytes.value
    assert hbm is not None  # the engine runs memory rules only on chips whose HBM is known
    per_chip = memory.per_chip
    if per_chip * 100 > hbm * WARNING_PERCENT and per_chip <= hbm:
        used, available = sizes(per_chip, hbm)
        yield Violation(
            SPARSECORE_PATH,
            f"{sparsecore_taken(memory, used)}: {per_chip / hbm:.0%} of the {available} of HBM "
            f"of a {fit.chip.name} chip, which leaves little for activations, buffers and "
            "XLA's working set",
            sparsecore_remedy(memory, hbm * WARNING_PERCENT // 100),
        )


def _on_jax(memory: JaxMemory, fit: Fit) -> Iterator[Violation]:
    hbm = fit.chip.hbm_per_core
    assert hbm is not None  # the engine runs memory rules only on chips whose HBM is known
    used_bytes = memory.per_device_bytes
    if used_bytes * 100 > hbm * WARNING_PERCENT and used_bytes <= hbm:
        used, available = sizes(used_bytes, hbm)
        yield Violation(
            JAX_PATH,
            f"{jax_taken(memory, used)}: {used_bytes / hbm:.0%} of the {available} of HBM of a "
            f"{fit.chip.name} device, which leaves little for activations and XLA's working set",
            jax_remedy(memory, hbm * WARNING_PERCENT // 100),
        )
