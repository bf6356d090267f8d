"""A schedule that no learning rate follows.

## What it does
Reports an entry of `schedules` that no optimizer's `learning_rate` names.

## Why is this bad?
TensorFlow only counts schedules that tables use: an unused one gets no tag, so the tags of the
schedules after it are not what their place in the list suggests, and a `tag` pinned on a later
schedule will not match.

## What TensorFlow does
Dynamic learning rates are collected from the tables (`table.optimizer.learning_rate not in
self._dynamic_learning_rates`); a callable no table uses never becomes a tag.

## Example
```yaml
schedules: [{name: warmup}, {name: decay}]
optimizer: {sgd: {}, learning_rate: {schedule: decay}}
```

## Use instead
```yaml
schedules: [{name: decay}]
optimizer: {sgd: {}, learning_rate: {schedule: decay}}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.__init__` (collects the callable learning rates of the tables it uses) and
  `TPUEmbedding._create_config_proto` (turns them into tags)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    used = facts.compiled.tags
    for index, schedule in enumerate(spec.schedules):
        if schedule.name not in used:
            yield Violation(
                ("schedules", index),
                f"schedule {schedule.name!r} is followed by no table, so it gets no tag",
                "remove it, or set it as the learning rate of the tables that should follow it",
            )
