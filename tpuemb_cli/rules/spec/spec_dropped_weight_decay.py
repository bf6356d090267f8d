"""multiply_weight_decay_factor_by_learning_rate without a weight decay: TensorFlow drops it.

## What it does
Reports an optimizer with `multiply_weight_decay_factor_by_learning_rate: true` and a
`weight_decay_factor` of 0 or none.

## Why is this bad?
It reads as if weight decay were configured. It is not: the compiled config has neither the factor
nor the flag.

## What TensorFlow does
The flag is written only inside `if self.weight_decay_factor:`, so it is dropped silently when the
factor is 0 or None (`tests/data/tf-2.21/optim/sgd_weight_decay_zero_mult_lr.pbtxt`,
`sgd_weight_decay_none_mult_lr.pbtxt`).

## Example
```yaml
optimizer: {sgd: {}, multiply_weight_decay_factor_by_learning_rate: true}
```

## Use instead
```yaml
optimizer:
  sgd: {}
  weight_decay_factor: 0.0001
  multiply_weight_decay_factor_by_learning_rate: true
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `_Optimizer._set_optimization_parameters` (writes `weight_decay_factor` and
  `multiply_weight_decay_factor_by_learning_rate` only inside `if self.weight_decay_factor:`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import optimizers
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if spec.HasField("sparse_core"):
        return  # TPUEmbeddingV2 refuses the flag outright: TE663
    for path, optimizer in optimizers(spec):
        if optimizer.multiply_weight_decay_factor_by_learning_rate and not (
            optimizer.weight_decay_factor
        ):
            yield Violation(
                path + ("multiply_weight_decay_factor_by_learning_rate",),
                "TensorFlow drops `multiply_weight_decay_factor_by_learning_rate` without a word: "
                "there is no weight decay (`weight_decay_factor` is 0 or unset)",
                "set the weight_decay_factor you meant, or remove the flag",
            )
