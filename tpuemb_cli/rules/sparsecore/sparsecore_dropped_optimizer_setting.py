"""An optimizer setting that never reaches the SparseCore: TPUEmbeddingV2 ignores it.

## What it does
Reports, on an optimizer a table of a SparseCore spec trains with, each setting that
TPUEmbeddingV2 passes to no SparseCore op:

| setting | what SparseCore does instead |
|---|---|
| `clipvalue` | no gradient clipping |
| `clip_weight_min`, `clip_weight_max` | no clipping of the updated weights |
| `use_gradient_accumulation: false` | each row's gradients are summed over the batch as usual |
| `adam: {lazy_adam: false}` | the Adam op has no switch for it |
| `low_dimensional_packing_status: true` | no packing of narrow tables |
| `ftrl: {allow_zero_accumulator: true}` | the FTRL op has no switch for it |

`use_gradient_accumulation: true`, `lazy_adam: true` and the other defaults are not reported:
they ask for nothing SparseCore fails to do.

## Why is this bad?
The setting reads as if it changed training; on SparseCore it does not, and nothing says so. A
model tuned with gradient clipping on TensorCore-embedding TPUs trains without it. (The settings
still take part in TensorFlow's stacking key -- `hash(optimizer)` -- so tables that differ only
in one of them are not stacked together.)

## What TensorFlow does
`TPUEmbeddingV2.apply_gradients` calls one
`XlaSparseDenseMatmulGradWith<Optimizer>AndStaticBufferSize` op per stacked table, with the
learning rate and: nothing else for SGD and Adagrad (Adagrad's
`initial_accumulator_value` initialises its slot); `use_nesterov`, `exponent`, `momentum`,
`beta2`, `epsilon` for AdagradMomentum; `sum_inside_sqrt`, `beta_1`, `beta_2`, `epsilon` for
Adam; `multiply_linear_by_learning_rate`, `beta`, `learning_rate_power` and the two
regularization strengths for FTRL. The settings above are read by no code of
`tpu_embedding_v3.py`; they exist for TPUEmbedding's `OptimizationParameters`, which
TPUEmbeddingV2 never builds.

## Example
```yaml
optimizer: {adagrad: {}, clipvalue: {scalar: 1.0}}
sparse_core: {}
```

## Use instead
```yaml
optimizer: {adagrad: {}}
sparse_core: {}
```
and clip the gradients of the activations in the model, before `apply_gradients`, if you need
clipping.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `TPUEmbeddingV2.apply_gradients` (the optimizer fields each SparseCore op receives)
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `_Optimizer.__init__` and `_set_optimization_parameters` (where the settings are kept, and
  the TPUEmbedding-only proto they are written to)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.pb.spec.embedding_spec_pb2 import Optimizer
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.sparsecore_topology import is_sparsecore, used_optimizers
from tpuemb_cli.spec.facts import SpecFacts

_NOT_CLIPPED = "gradients are not clipped"


def dropped(optimizer: Optimizer) -> Iterator[tuple[FieldPath, str, str]]:
    """(field, what it asks for, what SparseCore does instead) for each dropped setting."""
    if optimizer.HasField("clipvalue"):
        yield ("clipvalue",), "gradient clipping", _NOT_CLIPPED
    for field in ("clip_weight_min", "clip_weight_max"):
        if optimizer.HasField(field):
            yield (field,), "clipping of the weights", "the updated weights are not clipped"
    if optimizer.HasField("use_gradient_accumulation") and not optimizer.use_gradient_accumulation:
        yield (
            ("use_gradient_accumulation",),
            "no gradient accumulation",
            "each row's gradients are still summed over the batch",
        )
    if optimizer.HasField("low_dimensional_packing_status") and (
        optimizer.low_dimensional_packing_status
    ):
        yield (
            ("low_dimensional_packing_status",),
            "packing of low-dimensional tables",
            "tables are laid out by SparseCore's own rules",
        )
    algorithm = optimizer.WhichOneof("algorithm")
    if (
        algorithm == "adam"
        and optimizer.adam.HasField("lazy_adam")
        and not (optimizer.adam.lazy_adam)
    ):
        yield (
            ("adam", "lazy_adam"),
            "non-lazy Adam",
            "Adam runs as the SparseCore op does, with no lazy_adam switch",
        )
    if algorithm == "ftrl" and optimizer.ftrl.allow_zero_accumulator:
        yield (
            ("ftrl", "allow_zero_accumulator"),
            "a zero FTRL accumulator",
            "FTRL runs as the SparseCore op does, with no allow_zero_accumulator switch",
        )


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if not is_sparsecore(spec):
        return
    for path, optimizer in used_optimizers(spec):
        if optimizer.WhichOneof("algorithm") == "custom":
            continue  # TE664 reports the optimizer itself
        for field, asks, instead in dropped(optimizer):
            name = ".".join(str(part) for part in field)
            yield Violation(
                path + field,
                f"SparseCore drops `{name}` without a word ({asks}): TPUEmbeddingV2 passes it to "
                f"no SparseCore op, so {instead}",
                f"remove `{name}`; on SparseCore it has no effect",
            )
