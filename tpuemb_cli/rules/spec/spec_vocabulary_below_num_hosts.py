"""A spec table with fewer rows than hosts: TensorFlow pads it to one row a host.

## What it does
Reports a table that a feature uses whose `vocabulary_size` (at least 1) is below
`topology.num_hosts`, in a spec for `TPUEmbedding` (no `sparse_core` section). Spec from
TensorFlow's live objects (`spec_from_tf`, `lint_tf`) are specs too: the same table, the same
warning.

## Why is this bad?
Nothing fails: it is the one place where the config does not say what the spec says. The config
TensorFlow writes for this table has `vocabulary_size` equal to the host count, while the table's
variables keep the spec's rows (hosts past the last row create no variable). A config file with
the spec's smaller vocabulary would be refused (`vocabulary-below-num-hosts`), and `tpuemb diff`
cannot tell such a table's padded size from a real change of vocabulary.

## What TensorFlow does
`TPUEmbedding` builds its config with `TableConfig._set_table_descriptor`, which writes
`max(vocabulary_size, num_hosts)`: "For small tables, we pad to the number of hosts so that at
least one id will be assigned to each host". `tpuemb compile` does the same. The load and
retrieve ops, which split every table into one shard per host, would otherwise fail with
"All embedding shards must be non-empty". `TPUEmbeddingV2` (SparseCore) writes no such config:
its layouts pad tables their own way, and this rule does not look at SparseCore specs.

## Example
```yaml
tables:
  - {name: country, vocabulary_size: 3, dim: 4}
features: [{name: from, table: country}]
topology: {num_hosts: 4, cores_per_host: 4, per_replica_batch_size: 16}
```

## Use instead
```yaml
tables:
  - {name: country, vocabulary_size: 4, dim: 4}  # the rows the config will say
features: [{name: from, table: country}]
topology: {num_hosts: 4, cores_per_host: 4, per_replica_batch_size: 16}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `TableConfig._set_table_descriptor` (`vocabulary_size = max(self.vocabulary_size,
  num_hosts)`)
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `make_sharded_variable_creator`: "Skip variable creation for empty partitions, resulting from
  the edge case of 'rows < num_hosts'"
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.sparsecore_topology import is_sparsecore
from tpuemb_cli.rules.lib.spec_tables import table_label
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    if is_sparsecore(spec):
        return
    hosts = spec.topology.num_hosts
    for index in facts.compiled.table_sources:
        vocabulary = spec.tables[index].vocabulary_size
        if 1 <= vocabulary < hosts:
            yield Violation(
                ("tables", index, "vocabulary_size"),
                f"{table_label(spec, index)} has {vocabulary} rows for {hosts} hosts: "
                "TensorFlow's Python API (TPUEmbedding, through TableConfig."
                f"_set_table_descriptor) writes vocabulary_size {hosts} into the config, one row "
                f"a host, as `tpuemb compile` does; the variables keep {vocabulary} rows",
                f"nothing fails; to make the spec say what the config will, set "
                f"`vocabulary_size: {hosts}`",
            )
