"""A JAX feature whose batch does not split evenly over the SparseCores.

## What it does
Reports a feature of a spec made from jax-tpu-embedding's `FeatureSpec` objects
(`tpuemb_cli.jax.spec_from_jax`) whose batch, `input_shape[0]`, is not a multiple of
`global_device_count` x `num_sc_per_device`: the feature slices the library cuts the batch
into.

## Why is this bad?
Each SparseCore of each device looks up an equal slice of every feature's global batch. A batch
of 100 over 8 devices of 4 SparseCores leaves no whole slice for each one.

## What jax-tpu-embedding does
`prepare_feature_specs_for_training` and the stacking accept any batch. The TPU step fails
later: `_verify_input_batch_size`, called from the lookup (`_get_activation_for_feature`) and
from the gradient's stacking, raises `ValueError` ("The input batch size must be divisible by
the number of feature slices per device").

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "t" vocabulary_size: 1000 dim: 16 combiner: "sum" }
features { name: "f" table: "t" input_shape: [100, 1] output_shape: [100, 16] }
```

## Use instead
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "t" vocabulary_size: 1000 dim: 16 combiner: "sum" }
features { name: "f" table: "t" input_shape: [128, 1] output_shape: [128, 16] }
```

## Fix safety
No automatic fix: the batch is the input pipeline's.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `_verify_input_batch_size`, `_get_activation_for_feature` and
  `_prepare_gradient_for_stacking`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import feature_label, feature_path
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    devices, per_device = spec.jax.global_device_count, spec.jax.num_sc_per_device
    slices = devices * per_device
    if slices < 1:  # no SparseCores at all: nothing to divide by
        return
    for index, feature in enumerate(spec.features):
        if not feature.input_shape:
            continue
        batch = feature.input_shape[0]
        if batch % slices == 0:
            continue
        below, above = batch - batch % slices, batch - batch % slices + slices
        yield Violation(
            (*feature_path(index), "input_shape", 0),
            f"{feature_label(index, feature)} has a batch of {batch}, which {devices} devices x "
            f"{per_device} SparseCores ({slices} feature slices) do not divide: the library "
            "raises ValueError at the first lookup on the TPU",
            f"make the batch a multiple of {slices} (e.g. "
            + (f"{below} or {above})" if below else f"{above})"),
        )
