"""A table's vocabulary is smaller than the number of hosts: some hosts' shards are empty.

## What it does
Reports `vocabulary_size` below `num_hosts` (for a vocabulary of at least 1; below that,
`invalid-table-size` reports it).

## Why is this bad?
TensorFlow's load and retrieve ops split every table into one shard per host, and refuse a
table that leaves a shard without a row: with 10 rows on 32 hosts, hosts 10 to 31 cannot load
or retrieve the table's state, so training cannot start from this config.

## What TensorFlow does
`LoadAllTPUEmbeddingParameters`, `RetrieveAllTPUEmbeddingParameters` and the per-optimizer load
and retrieve ops compute each shard's rows with
`TpuEmbeddingShapeUtil::ComputeNumEmbeddingIdsPerShard`, which fails with `InvalidArgumentError:
All embedding shards must be non-empty, shard ID: 10 is empty, vocabulary size: 10, number of
shards: 32`; `TPUEmbedding` calls them with one shard per host (`num_shards=len(hosts)`).

A config TensorFlow's Python API writes never has this: `TableConfig._set_table_descriptor`
writes `max(vocabulary_size, num_hosts)` ("For small tables, we pad to the number of hosts so
that at least one id will be assigned to each host"), as `tpuemb compile` does for a spec
(`spec-vocabulary-below-num-hosts` tells a spec's author). A config file is read as written:
nothing pads it.

## Example
```pbtxt
table_descriptor { name: "country" vocabulary_size: 3 dimension: 4 }
num_hosts: 4
```

## Use instead
```pbtxt
table_descriptor { name: "country" vocabulary_size: 4 dimension: 4 }
num_hosts: 4
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/tpu/ops/tpu_embedding_shape_util.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_shape_util.cc),
  `TpuEmbeddingShapeUtil::ComputeNumEmbeddingIdsPerShard`: "All embedding shards must be
  non-empty"
- [`tensorflow/core/tpu/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/ops/tpu_embedding_ops.cc),
  the shape functions of `LoadAllTPUEmbeddingParameters` and `RetrieveAllTPUEmbeddingParameters`
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `_load_variables_impl` / `_retrieve_variables_impl`: `num_shards=len(hosts)`
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `TableConfig._set_table_descriptor` (`vocabulary_size = max(self.vocabulary_size,
  num_hosts)`; `tests/data/tf-2.21/config/small_vocab_multi_host.pbtxt`: vocabularies 3 and 1
  become 4 on 4 hosts)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import Config, table_label


def check_config(config: Config) -> Iterator[Violation]:
    hosts = config.num_hosts
    for index, table in enumerate(config.table_descriptor):
        vocabulary = table.vocabulary_size
        if 1 <= vocabulary < hosts:
            # With a finding only: a clean config's check does not load the memory model.
            from tpuemb_cli.model.memory import empty_shards

            error = empty_shards(vocabulary, hosts)
            yield Violation(
                ("table_descriptor", index, "vocabulary_size"),
                f"{table_label(config, index)} has {vocabulary} rows for {hosts} hosts, so "
                f"{hosts - vocabulary} hosts have no row of it: TensorFlow's load and retrieve "
                f"ops refuse it ({error}). TensorFlow's Python API pads a table to one row a "
                "host when it writes the config; a config file is read as written",
                f"set `vocabulary_size: {hosts}`, as TensorFlow's Python API would",
            )
