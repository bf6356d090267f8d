"""The restore succeeds, but a table or a slot starts afresh, or from another table's state.

## What it does
Reports, in `tpuemb diff`, a change after which a variable the new config creates gets no trained
state back from a checkpoint written under the old config: a renamed or new table, an optimizer
with slots the old one lacked (Adagrad -> Adam starts `momenta` and `velocities`), or unnamed
tables shifted or swapped, so that each is restored from what another table trained.

## Why is this bad?
Training goes on from a model that has silently forgotten part of what it learned. Nothing
fails: the loss jumps, or a swapped table quietly serves another feature's rows.

## What TensorFlow does
`restore()` succeeds; only `assert_existing_objects_matched()` notices a variable that got
nothing, and nothing notices a table restored from another one of the same shape. Tables without
a name are named `table_<i>` by position (`TPUEmbedding.__init__` in
[tpu_embedding_v2.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py)).

## What TPUEmbeddingV2 does (a SparseCore spec)
Restored into built variables, a stack that keeps its name and shape gets the saved values as
they are, wherever the new layout puts each table's rows (fewer partitions, other offsets), and
a stack the checkpoint does not name (a table moved to another stack) starts from its
initializers. Restored before the embedding is built, TensorFlow's checkpoint adapter re-lays out
the saved stacks from their layouts, but files each slot variable's entry under its stack's name,
so every slot starts afresh whenever any layout differs -- even only in the batch size the first
feature's table records
([tpu_embedding_v3_checkpoint_adapter.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3_checkpoint_adapter.py),
docs/sparsecore.md).

## What jax-tpu-embedding does
A stack's entry that keeps its name and shape restores whatever its layout: row `r` of a table
sits on SparseCore `(r mod N + shard_rotation) mod N` at `row_offset_in_shard + r div N`
(`_stack_and_shard_table` in
[table_stacking.py](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py)),
so another SparseCore count `N` (devices x SparseCores per device), offset or rotation gives each
table other rows' values, without an error. (Slots of another optimizer do not restore at all:
Orbax restores them by name, a `restore-error`.) Restack with the library instead (docs/jax.md).
Against an Orbax checkpoint on disk (`--against-checkpoint STEP`), the layout compared is the
`EmbeddingSpecProto` the checkpoint holds; where it holds none, such a stack is an
`unverified-layout`.

## Example
```pbtxt
# old: name: "user"
table_descriptor { name: "users" vocabulary_size: 1000 dimension: 16 }
```

## Use instead
```pbtxt
table_descriptor { name: "user" vocabulary_size: 1000 dimension: 16 }
```
or, for a table you mean to start afresh, acknowledge it:
`# tpuemb: ignore[silent-reinit] new table, trained from its initializer`.

## Fix safety
No fix: only you know whether the fresh start is meant.

## Options
In the default `--fail-on` of `tpuemb diff`.

## References
- docs/diff.md, "silent-reinit"
"""
