"""Checkpoint layouts record a batch size and a feature count for one table only.

## What it does
Reports, on a SparseCore spec (one with a `sparse_core` section), which table's layout records
`per_sparse_core_batch_size` and `num_features` and which tables the features use whose layouts
record 0 for both: what `TPUEmbeddingV2` writes into every checkpoint. The finding sits at the
first feature (in flatten order), the one that decides it. It is information: nothing in the spec
is wrong.

## Why is this bad?
The `SparseCoreTableLayouts` in a checkpoint (`tpuemb compile --target sparsecore`) look like a
record of how many samples each table serves; tools and people that read them (to size
SparseCore buffers, to reshard, to compare two runs) get 0 for every table but one, and for that
one only its first feature's samples. Knowing this saves a search for a bug in your own
configuration.

## What TensorFlow does
`_stack_tables_with_same_table_dim_and_optimizer` counts each feature's samples and then, still
inside the loop over features, adds every table to the stacker and returns: the tables are added
after the first feature only. So the first feature's table gets that feature's output samples
(divided by the SparseCores per chip) and `num_features: 1`; every other table gets 0, even when
features use it. The layouts it returns are the ones `_track_restore_info_for_cpu` saves under
the `_sparse_core_table_layouts` checkpoint key. TensorFlow 2.21 does this on every SparseCore
model with more than one feature.

## Example
```yaml
tables:
  - {name: user, vocabulary_size: 1000, dim: 16}
  - {name: item, vocabulary_size: 5000, dim: 16}
features:
  - {name: user_id, table: user, output_shape: [128]}
  - {name: item_id, table: item, output_shape: [128]}
sparse_core: {}
```
The layouts record `per_sparse_core_batch_size: 32` and `num_features: 1` for `user`, and 0 for
`item`.

## Use instead
Nothing to change in the spec; read the samples per table from the features, not from the
checkpoint's layouts.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `_stack_tables_with_same_table_dim_and_optimizer` (the `return s` inside
  `for _, feature in flat_features`) and `TPUEmbeddingV2._track_restore_info_for_cpu`
- [`tensorflow/core/tpu/kernels/sparse_core_layout.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/kernels/sparse_core_layout.cc),
  `SparseCoreLayoutStacker::AddTable` (`per_sparse_core_batch_size` = output samples / SparseCores
  per partition)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.spec.facts import SpecFacts

_LISTED = 4  # tables named in the message


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    found = facts.plan
    if found is None:
        return  # not a SparseCore spec, or `tpuemb compile --target sparsecore` says why
    quirk = found.quirk
    recorded = found.tables[quirk.recorded_table]
    if not quirk.zeroed_tables and recorded.features == recorded.recorded_features:
        return  # one feature: the layouts are right
    features = "feature" if recorded.recorded_features == 1 else "features"
    true_batch = recorded.samples // found.sparse_cores_per_partition
    message = (
        "the layouts TensorFlow writes into checkpoints record per_sparse_core_batch_size / "
        f"num_features only for table {quirk.recorded_table!r} "
        f"({recorded.recorded_batch_size} / {recorded.recorded_features} {features}"
    )
    if recorded.features != recorded.recorded_features:
        message += f"; its features look up {true_batch} / {recorded.features}"
    message += ")"
    if quirk.zeroed_tables:
        zeroed = quirk.zeroed_tables
        # A wide model would list every table: the first few name the point.
        listed = ", ".join(repr(name) for name in zeroed[:_LISTED])
        if len(zeroed) > _LISTED:
            listed += f" and {len(zeroed) - _LISTED} more"
        message += f"; tables {listed} carry 0" if len(quirk.zeroed_tables) > 1 else ""
        message += f"; table {listed} carries 0" if len(quirk.zeroed_tables) == 1 else ""
    yield Violation(
        ("features", quirk.first_feature),
        message + " (TensorFlow 2.21 returns from its per-feature loop after the first feature)",
        "nothing to change in the spec: read samples per table from the features, not from the "
        "checkpoint's layouts",
    )
