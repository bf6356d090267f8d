"""A spec table with no optimizer of its own and no global optimizer.

## What it does
Reports a table without `optimizer` when the spec has no top-level `optimizer` either.

## Why is this bad?
On a TPU every table needs an optimizer; the training script fails at TPUEmbedding's construction.

## What TensorFlow does
Under a TPU strategy, `TPUEmbedding` raises `<class 'NoneType'> is an unsupported optimizer class.
Please pass an instance of one of the optimizer classes under tf.tpu.experimental.embedding.`

## Example
```yaml
tables: [{name: video, vocabulary_size: 1000, dim: 16}]
```

## Use instead
```yaml
optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}
tables: [{name: video, vocabulary_size: 1000, dim: 16}]
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.__init__`: a table without an optimizer takes the global one; under a TPU
  strategy a table still without one raises `... is an unsupported optimizer class.`
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import table_label
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if spec.HasField("optimizer"):
        return
    for index, table in enumerate(spec.tables):
        if not table.HasField("optimizer"):
            yield Violation(
                ("tables", index, "optimizer"),
                f"{table_label(spec, index)} has no optimizer and the spec has no global one",
                "add `optimizer` to the table, or a top-level `optimizer` for all tables",
            )
