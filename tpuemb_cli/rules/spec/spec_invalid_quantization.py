"""A table's quantization with fewer than 2 buckets, or a reversed range.

## What it does
Reports `quantization` with `num_buckets` < 2 (TensorFlow's check) or `lower` > `upper` (which
TensorFlow does not check).

## Why is this bad?
Simulated quantization rounds values to `num_buckets` levels over `[lower, upper]`; with fewer than
2 levels, or a reversed range, training sees values serving never will.

## What TensorFlow does
`QuantizationConfig` raises `ValueError("num_buckets is 1, must be at least 2 for simulated
quantization.")`; a reversed range is accepted
(`tests/data/tf-2.21/optim/quantization_2_reversed.pbtxt`).

## Example
```yaml
tables:
  - name: q
    vocabulary_size: 100
    dim: 4
    quantization: {num_buckets: 1, lower: 1, upper: -1}
```

## Use instead
```yaml
tables:
  - name: q
    vocabulary_size: 100
    dim: 4
    quantization: {num_buckets: 256, lower: -1, upper: 1}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `QuantizationConfig.__init__` (checks `num_buckets` only; `lower` and `upper` are not compared)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number, plural
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import table_label
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    for index, table in enumerate(spec.tables):
        if not table.HasField("quantization"):
            continue
        quantization = table.quantization
        if quantization.num_buckets < 2:
            yield Violation(
                ("tables", index, "quantization", "num_buckets"),
                f"{table_label(spec, index)} quantizes into "
                f"{plural(quantization.num_buckets, 'bucket')}; "
                "TensorFlow requires at least 2",
                "use the number of levels to simulate, for example 256",
            )
        if quantization.lower > quantization.upper:
            yield Violation(
                ("tables", index, "quantization"),
                f"the quantization range of {table_label(spec, index)} is reversed: lower "
                f"{number(quantization.lower)} > upper {number(quantization.upper)}",
                "swap lower and upper",
            )
