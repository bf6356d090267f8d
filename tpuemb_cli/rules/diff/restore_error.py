"""Restoring a checkpoint written under the old config fails: a variable's shape changed.

## What it does
Reports, in `tpuemb diff`, a change after which a variable of the checkpoint no longer fits the
variable the new config creates under the same name: a table's `dimension` or its rows (a
spec's `vocabulary_size`), or a table whose name now belongs to a table of another shape (an
unnamed table shifted by an inserted one).

## Why is this bad?
The training job that restores the last checkpoint stops at the restore, minutes into its run on
the TPU, and every checkpoint written before the change is unusable with the new config.

## What TensorFlow does
`tf.train.Checkpoint.restore()` raises `Received incompatible tensor with shape (100, 8) when
attempting to restore variable with shape (100, 16)`. Each table is one variable named after the
table (and one per optimizer slot, `<table>/<slot>`): `_create_variables` in
[tpu_embedding_base.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_base.py).

## What TPUEmbeddingV2 does (a SparseCore spec)
Its checkpoints hold one variable per stack of tables, named after the stack, with the layouts it
was saved under (`_create_variables`, `_track_restore_info_for_cpu` in
[tpu_embedding_v3.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py)).
A table added, removed or renamed raises `ValueError: Layouts in checkpoint and embedding must
have the same keys` (`is_layouts_same` in
[tpu_embedding_v3_checkpoint_adapter.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3_checkpoint_adapter.py));
a stack of another shape raises `shape in shape_and_slice spec [..] does not match the shape
stored in checkpoint` when restored into built variables; a table resized, even within its
padding, raises when restored before the embedding is built, where the adapter re-lays out the
saved stacks (docs/sparsecore.md).

## What jax-tpu-embedding does
Its checkpoints hold one entry per stack, named after the stack: `init_embedding_variables` in
[embedding.py](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py)
makes `{stack_name: EmbeddingVariables(table, slot)}`, and Orbax restores that tree strictly. A
stack gained, lost or renamed (a table joining a stack renames it) or another optimizer's slot
arrays (restored by name: Adam's `momentum`, `velocity` are not FTRL's `accumulator`, `linear`)
raise `User-provided restore item and on-disk value metadata tree structures do not
match`; another shape (a table's padded rows or width, the SparseCore count) raises `Requested
shape: ... is not compatible with the stored shape`. `tpuemb diff` of two `EmbeddingSpecProto`
files reports each, and `--against-checkpoint STEP` judges them from the arrays an Orbax
checkpoint holds, with the library's way across: `unstack_and_unshard_stacked_tables` with the
old layout, then `stack_and_shard_feature_tables` with the new one, in
[table_stacking.py](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py);
or `convert_cross_topology_checkpoint` for an NNX checkpoint, in
[checkpoint_utils.py](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.2.0/jax_tpu_embedding/sparsecore/lib/flax/nnx/checkpoint_utils.py)
(docs/jax.md).

## Example
```pbtxt
# old: dimension: 16
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 32 }
```

## Use instead
```pbtxt
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 16 }
```
or start training from scratch, and acknowledge the change where it is made:
`dimension: 32  # tpuemb: ignore[restore-error] retrained from scratch`.

## Fix safety
No fix: only you know whether the new shape is meant.

## Options
In the default `--fail-on` of `tpuemb diff`.

## References
- docs/diff.md, "restore-error"
"""
