"""A spec table that no feature uses: TensorFlow leaves it out of the config.

## What it does
Reports a table that no feature names.

## Why is this bad?
TensorFlow builds its table list from the features, so the table is silently not created: its
optimizer, its vocabulary, its checkpoint variables -- none of it exists, while the spec says it
does. Usually a feature points at the wrong table.

## What TensorFlow does
`TPUEmbedding` takes tables "in order of first occurrence in `nest.flatten(feature_config)`"; a
TableConfig no FeatureConfig refers to is never seen.

## Example
```yaml
tables:
  - {name: video, vocabulary_size: 1000, dim: 16}
  - {name: channel, vocabulary_size: 100, dim: 8}
features: [{name: watched, table: video}]
```

## Use instead
```yaml
tables:
  - {name: video, vocabulary_size: 1000, dim: 16}
features: [{name: watched, table: video}]
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.__init__`: the table order is the order of first use in
  `nest.flatten(feature_config)`
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import table_label
from tpuemb_cli.spec.compiler import resolve_table, table_indexes
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    names = table_indexes(spec)
    used = {resolve_table(spec, feature, names) for feature in spec.features}
    for index in range(len(spec.tables)):
        if index not in used:
            yield Violation(
                ("tables", index),
                f"no feature uses {table_label(spec, index)}, so TensorFlow will not create it",
                "remove the table, or point the feature that should use it at it",
            )
