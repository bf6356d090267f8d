"""Two spec tables get the same name, counting the table_<i> names TensorFlow gives unnamed ones.

## What it does
Works out the names TensorFlow will give the tables (an unnamed table becomes `table_<i>`, i its
place in table order) and reports a table whose name another already has -- including an
explicit name that collides with a generated one. Also reports, as a warning, a table with no name
(TensorFlow warns that SparseCore needs names).

Two `TableConfig` objects that carry one name (from `spec_from_tf` / `lint_tf`) are two tables
here too: the features that use the second are not pointed at the first.

## Why is this bad?
Table variables are checkpointed and loaded by name; TensorFlow refuses to start.

## What TensorFlow does
Every mid-level API class raises, when it is constructed, `ValueError("Tables must have a unique
name. Multiple tables with name table_0 found.")`: `TPUEmbedding` (TensorCore) in its own
`__init__`, and `TPUEmbeddingV2` (SparseCore), `TPUEmbeddingV0` and `TPUEmbeddingForServing` in
their base class's, `TPUEmbeddingBase.__init__`. Tables are told apart by object, so two
different `TableConfig`s named alike are refused even when they are otherwise equal.
`TableConfig(name=None)` logs "Name of the table config must be specified for running on
SparseCore."

## Example
```yaml
tables:
  - {vocabulary_size: 10, dim: 2}
  - {name: table_0, vocabulary_size: 10, dim: 2}
```

## Use instead
```yaml
tables:
  - {name: country, vocabulary_size: 10, dim: 2}
  - {name: language, vocabulary_size: 10, dim: 2}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding.__init__`: names an unnamed table `table_<i>` and raises `ValueError("Tables must
  have a unique name. ...")`, also when an explicit name collides with a generated `table_0`
- [`tensorflow/python/tpu/tpu_embedding_base.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_base.py),
  `TPUEmbeddingBase.__init__`: the same check, for `TPUEmbeddingV2`
  ([`tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py)),
  `TPUEmbeddingV0` (`tpu_embedding_v1.py`) and `TPUEmbeddingForServing`
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    compiled = facts.compiled
    first: dict[str, int] = {}
    for position, index in enumerate(compiled.table_sources):
        name = compiled.config.table_descriptor[position].name
        if name in first:
            generated = "" if spec.tables[index].name else " (the name TensorFlow gives it)"
            yield Violation(
                ("tables", index, "name"),
                f'table #{index} is named "{name}"{generated}, like table #{first[name]}; '
                "TensorFlow requires unique table names (ValueError: Tables must have a unique "
                f"name. Multiple tables with name {name} found.)",
                "give each table its own explicit name",
            )
        else:
            first[name] = index
