"""A spec table that TensorFlow's TableConfig rejects: size below 1, unknown combiner or dtype.

## What it does
Reports a table of an embedding spec whose `vocabulary_size` or `dim` is below 1, whose
`combiner` is not `mean`, `sum` or `sqrtn`, or whose `dtype` is not `float32` or `int32`.

## Why is this bad?
The training script fails before it starts; the spec describes something that cannot be built.

## What TensorFlow does
`TableConfig` raises: ``Argument `vocabulary_size` must be an int and must be >= 1``,
``Argument `dim` (embedding dimension) must be an int and must be >= 1``, ``String argument
`combiner` must be in ('mean', 'sum', 'sqrtn')``, ``Argument `dtype` must be either float32 or
int32``.

## Example
```yaml
tables:
  - {name: video, vocabulary_size: 1000, dim: 0, combiner: max}
```

## Use instead
```yaml
tables:
  - {name: video, vocabulary_size: 1000, dim: 16, combiner: mean}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `TableConfig.__init__` (the `vocabulary_size`, `dim`, `initializer`, `combiner` and `dtype`
  checks)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import table_label
from tpuemb_cli.spec.facts import SpecFacts

COMBINERS = ("mean", "sum", "sqrtn")
DTYPES = ("float32", "int32")


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        label = table_label(spec, index)
        for field, value in (("vocabulary_size", table.vocabulary_size), ("dim", table.dim)):
            if value < 1:
                yield Violation(
                    ("tables", index, field),
                    f"{label} has `{field}` {value}; TableConfig needs an int >= 1",
                    f"set `{field}`",
                )
        if table.HasField("combiner") and table.combiner not in COMBINERS:
            yield Violation(
                ("tables", index, "combiner"),
                f"{label} has combiner {table.combiner!r}; TableConfig accepts mean, sum, sqrtn",
                "use mean, sum or sqrtn",
            )
        if table.HasField("dtype") and table.dtype not in DTYPES:
            yield Violation(
                ("tables", index, "dtype"),
                f"{label} has dtype {table.dtype!r}; TableConfig accepts float32 or int32",
                "use float32 or int32",
            )
