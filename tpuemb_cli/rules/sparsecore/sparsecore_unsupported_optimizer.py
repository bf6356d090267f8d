"""An optimizer SparseCore has no update for: the first training step fails.

## What it does
Reports a `custom` optimizer that a table of a SparseCore spec trains with. The spec's other
optimizers -- `sgd`, `adagrad`, `adagrad_momentum`, `adam`, `ftrl` -- are exactly the ones
SparseCore supports, so in a hand-written spec this rule fires only on `custom`. It matters most
for specs built from a training script's live objects by `tpuemb_cli.tf.spec_from_tf`, which
writes `custom: {type: ...}` for TensorFlow's `CustomOptimizer` and for any other optimizer
class that is not one of the five (or a subclass of one).

## Why is this bad?
TensorFlow documents `tf.tpu.experimental.embedding.CustomOptimizer` as the optimizer that "can
only be used with the `TPUEmbeddingV2` class", yet TensorFlow 2.21's TPUEmbeddingV2 has no
update for it: construction succeeds, the first `apply_gradients` fails.

## What TensorFlow does
`TPUEmbeddingV2.apply_gradients` picks the SparseCore op by `isinstance` on the first table of
each stack: SGD, Adagrad, AdagradMomentum, Adam, FTRL. Any other optimizer -- `CustomOptimizer`
included -- raises `ValueError: Unsupported optimizer in minibatching mode.`

## Example
```yaml
tables:
  - {name: video, vocabulary_size: 1000, dim: 16,
     optimizer: {custom: {type: CustomOptimizer}, learning_rate: {constant: 0.1}}}
sparse_core: {}
```

## Use instead
```yaml
tables:
  - {name: video, vocabulary_size: 1000, dim: 16,
     optimizer: {adagrad: {}, learning_rate: {constant: 0.1}}}
sparse_core: {}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `TPUEmbeddingV2.apply_gradients` (the `isinstance` chain and its `ValueError`)
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `CustomOptimizer`
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.optimizers import optimizers
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.sparsecore_topology import is_sparsecore, used_optimizers
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if not is_sparsecore(spec):
        return
    for path, optimizer in used_optimizers(spec):
        if optimizer.WhichOneof("algorithm") == "custom":
            kind = optimizer.custom.type or "a custom optimizer"
            yield Violation(
                path + ("custom",),
                f"SparseCore has no update for {kind}: TPUEmbeddingV2 is built, then its first "
                "apply_gradients raises ValueError: Unsupported optimizer in minibatching mode.",
                f"use {_supported()}",
            )


def _supported() -> str:
    """The spec's names of the optimizers SparseCore has an update for: ``sgd, ... or ftrl``."""
    names = [row.spec for row in optimizers() if row.sparsecore]
    return " or ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]
