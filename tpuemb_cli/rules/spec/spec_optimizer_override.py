"""A table's own optimizer that differs from the global one only in its learning rate.

## What it does
Reports, as information, a table whose `optimizer` equals the spec's global `optimizer` in every
setting but the learning rate.

## Why is this bad?
It is often a copy-paste accident: the table was meant to follow the global optimizer (and its
future changes), or was meant to differ in more than the rate. Either way the override hides the
table from every later change to the global optimizer.

## What TensorFlow does
A table's own optimizer silently replaces the global one (`TPUEmbedding` only fills in the global
optimizer where a table has none).

## Example
```yaml
optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}
tables:
  - name: video
    vocabulary_size: 1000
    dim: 16
    optimizer: {adagrad: {}, learning_rate: {constant: 0.1}}
```

## Use instead
```yaml
optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}
tables:
  - {name: video, vocabulary_size: 1000, dim: 16}
```

## Fix safety
No automatic fix.

## Options
None. Suppress it where the different rate is deliberate.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.__init__` (gives the global optimizer only to tables that have none)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import table_label
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if not spec.HasField("optimizer"):
        return
    for index, table in enumerate(spec.tables):
        if not table.HasField("optimizer"):
            continue
        own, shared = type(table.optimizer)(), type(spec.optimizer)()
        own.CopyFrom(table.optimizer)
        shared.CopyFrom(spec.optimizer)
        if own.learning_rate == shared.learning_rate:
            continue
        own.ClearField("learning_rate")
        shared.ClearField("learning_rate")
        if own == shared:
            yield Violation(
                ("tables", index, "optimizer"),
                f"{table_label(spec, index)} has its own optimizer, identical to the global one "
                "except for the learning rate",
                "drop the table's optimizer to follow the global one, or suppress this if the "
                "rate differs on purpose",
            )
