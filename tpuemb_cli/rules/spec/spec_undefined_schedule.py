"""A learning rate names a schedule the spec does not define.

## What it does
Reports `learning_rate: {schedule: NAME}` where no entry of `schedules` has that name.

## Why is this bad?
The learning rate the table should follow is unknown: a typo, or a schedule that was renamed.

## What TensorFlow does
In TensorFlow a schedule is a Python callable passed as `learning_rate`; a name that refers to
nothing is a `NameError` in the training script, or, in hand-built code, a
`KeyError: <function ...>` when the table's learning rate is not in the tag index.

## Example
```yaml
schedules: [{name: warmup}]
optimizer: {sgd: {}, learning_rate: {schedule: warmpu}}
```

## Use instead
```yaml
schedules: [{name: warmup}]
optimizer: {sgd: {}, learning_rate: {schedule: warmup}}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `TableConfig._set_table_descriptor`: a callable learning rate missing from the tag index gives
  `KeyError`
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.nearest import nearest
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import optimizers
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    names = [schedule.name for schedule in spec.schedules]
    for path, optimizer in optimizers(spec):
        rate = optimizer.learning_rate
        if rate.WhichOneof("value") == "schedule" and rate.schedule not in names:
            # Names the user chose: difflib's usual closeness, not the stricter one for fields.
            close = nearest(rate.schedule, names, cutoff=0.6)
            yield Violation(
                path + ("learning_rate", "schedule"),
                f"the learning rate follows schedule {rate.schedule!r}, which `schedules` does "
                "not define",
                f"did you mean {close!r}?" if close else "add it to `schedules`",
            )
