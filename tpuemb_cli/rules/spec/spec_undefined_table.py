"""A spec feature names a table the spec does not define.

## What it does
Reports a feature whose `table` is neither the name of a table nor `#<index>` of one.

## Why is this bad?
The feature has nothing to look up; the spec cannot be built.

## What TensorFlow does
`FeatureConfig(table=...)` raises ``Argument `table` has invalid type ... Expected
`tf.tpu.experimental.embedding.TableConfig`.`` for anything that is not a TableConfig.

## Example
```yaml
tables: [{name: video, vocabulary_size: 1000, dim: 16}]
features: [{name: watched, table: vidoe}]
```

## Use instead
```yaml
tables: [{name: video, vocabulary_size: 1000, dim: 16}]
features: [{name: watched, table: video}]
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `FeatureConfig.__init__` (the `table` argument must be a `TableConfig`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.nearest import nearest
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import feature_label
from tpuemb_cli.spec.compiler import resolve_table, table_indexes
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    indexes = table_indexes(spec)
    names = list(indexes)
    for index, feature in enumerate(spec.features):
        if resolve_table(spec, feature, indexes) is None:
            # Names the user chose: difflib's usual closeness, not the stricter one for fields.
            close = nearest(feature.table, names, cutoff=0.6)
            yield Violation(
                ("features", index, "table"),
                f"{feature_label(spec, index)} uses table {feature.table!r}, which the spec does "
                "not define",
                f"did you mean {close!r}?"
                if close
                else "name a table of `tables`, or `#<index>` for an unnamed one",
            )
