"""A schedule pinned to a tag that TensorFlow will not give it, shares its pin, or leaves a gap.

## What it does
A schedule's `tag` pins it: the spec asserts which learning-rate input the schedule will be. This
rule reports two schedules pinned to one tag, pinned tags that leave a gap (pins must be 0..K-1),
and a pin that differs from the tag TensorFlow will actually assign -- tags are not chosen, they
are numbered by the tables' first use of each schedule, in table order.

## Why is this bad?
The trainer feeds one learning rate per tag, in tag order. A pin that does not hold means the
trainer's code and the config disagree about which schedule is which: tables train with another
schedule's learning rate, and nothing fails.

## What TensorFlow does
`learning_rate_index = {r: i for i, r in enumerate(self._dynamic_learning_rates)}`, collected in
table order. No check compares it with anything.

## Example
```yaml
schedules: [{name: warmup, tag: 1}, {name: decay, tag: 0}]
tables:
  - {name: a, vocabulary_size: 10, dim: 2, optimizer: {sgd: {}, learning_rate: {schedule: warmup}}}
  - {name: b, vocabulary_size: 10, dim: 2, optimizer: {sgd: {}, learning_rate: {schedule: decay}}}
```

## Use instead
```yaml
schedules: [{name: warmup, tag: 0}, {name: decay, tag: 1}]
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.__init__` (collects the distinct callable learning rates in table order) and
  `TPUEmbedding._create_config_proto` (numbers them 0..K-1 as the dynamic tags)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.tags import missing
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    pinned = {i: s.tag for i, s in enumerate(spec.schedules) if s.HasField("tag")}
    if not pinned:
        return
    holders: dict[int, int] = {}
    for index, tag in pinned.items():
        if tag in holders:
            yield Violation(
                ("schedules", index, "tag"),
                f"schedules {spec.schedules[holders[tag]].name!r} and "
                f"{spec.schedules[index].name!r} are both pinned to tag {tag}; one tag is one "
                "learning rate",
                "give each schedule its own tag",
            )
        else:
            holders[tag] = index
    gap = missing(holders, max(holders) + 1)
    if gap.total:
        first_above = min((i for t, i in holders.items() if t > gap.first[0]))
        yield Violation(
            ("schedules", first_above, "tag"),
            f"pinned tags leave tag{'s' if gap.total > 1 else ''} {gap.shown()} unassigned; "
            "tags are 0..K-1",
            "pin the schedules to 0, 1, 2, ... in the order the tables first use them",
        )
    assigned = facts.compiled.tags
    for index, tag in pinned.items():
        actual = assigned.get(spec.schedules[index].name)
        if actual is not None and actual != tag:
            yield Violation(
                ("schedules", index, "tag"),
                f"schedule {spec.schedules[index].name!r} is pinned to tag {tag}, but TensorFlow "
                f"will give it tag {actual} (tags follow the tables' first use of each schedule)",
                f"pin it to {actual}, or reorder the tables",
            )
