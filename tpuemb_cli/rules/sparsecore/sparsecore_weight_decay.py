"""Weight decay on SparseCore: TPUEmbeddingV2 refuses it when it is built.

## What it does
Reports `weight_decay_factor` and `multiply_weight_decay_factor_by_learning_rate` on an
optimizer a table of a SparseCore spec trains with -- whatever their value, `0` and `false`
included.

## Why is this bad?
TPUEmbeddingV2 does not implement weight decay, and its check is whether the settings were given
at all (`is not None`), not whether they decay anything: an explicit
`weight_decay_factor: 0` or `multiply_weight_decay_factor_by_learning_rate: false`, harmless
for TPUEmbedding, stops the training script before its first step.

## What TensorFlow does
`TPUEmbeddingV2.__init__` raises `NotImplementedError: weight_decay_factor and
multiply_weight_decay_factor_by_learning_rate are not supported yet. But found in table <name>
setting.` for the first table whose optimizer has either set. The check runs on each table's
optimizer after the global one is filled in, so a global optimizer that no table uses is never
checked (and not reported here).

## Example
```yaml
optimizer: {adagrad: {}, weight_decay_factor: 0.0}
sparse_core: {}
```

## Use instead
```yaml
optimizer: {adagrad: {}}
sparse_core: {}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `TPUEmbeddingV2.__init__` (the `is not None` checks and the `NotImplementedError`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.sparsecore_topology import is_sparsecore, used_optimizers
from tpuemb_cli.spec.facts import SpecFacts

FIELDS = ("weight_decay_factor", "multiply_weight_decay_factor_by_learning_rate")


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if not is_sparsecore(spec):
        return
    for path, optimizer in used_optimizers(spec):
        for field in FIELDS:
            if optimizer.HasField(field):
                value = getattr(optimizer, field)
                shown = str(value).lower() if isinstance(value, bool) else number(value)
                yield Violation(
                    path + (field,),
                    f"TPUEmbeddingV2 does not support weight decay and raises "
                    f"NotImplementedError when it is built: `{field}` is set ({shown}), and "
                    "TensorFlow refuses any value, even 0 or false",
                    f"remove `{field}` from the optimizer",
                )
