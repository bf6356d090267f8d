"""A stack restores from an Orbax checkpoint by shape, and nothing says its rows are in place.

## What it does
Reports, in `tpuemb diff --against-checkpoint STEP NEW`, each stack of the new stacked layout
that restores from the checkpoint (the same name, shape and slots) where the checkpoint holds no
`EmbeddingSpecProto` to compare its layout with, or holds one that does not describe its arrays;
and each stack whose new optimizer's slots the layout does not name (`CUSTOM`, as the library
records LaProp), where the checkpoint holds slot arrays: Orbax restores them only by name.

## Why is this bad?
A stack keeps its shape through many re-layouts: another number of SparseCores in all
(devices x SparseCores per device) where the padding leaves the rows alone, another
`row_offset_in_shard` or `shard_rotation`, another table of the same size in the stack. Each
restores without an error and gives every table other rows' values (a `silent-reinit`); from
the arrays' names and shapes alone, that cannot be told from no change at all.

## What TensorFlow does
Nothing of this: a TensorFlow checkpoint keys each table's variable by the table's name, and its
shape is the table's own (`--against-checkpoint` of a config or spec compares them).

## What jax-tpu-embedding does
Its variables are `{stack_name: EmbeddingVariables(table, slot)}` (`init_embedding_variables`
in
[embedding.py](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py)),
and Orbax checks keys and shapes only. The layout is in the `EmbeddingSpecProto`, which 0.2.0's
`save_checkpoint` saves beside the model as an item of `ProtoCheckpointHandler`
([checkpoint_utils.py](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.2.0/jax_tpu_embedding/sparsecore/lib/flax/nnx/checkpoint_utils.py)).

## Example
The layout the job now runs, against a checkpoint written by
`ocp.StandardCheckpointer().save(path, variables)` (its stacks, no proto):
```pbtxt
stacked_table_specs {
  stack_name: "user_item"
  stack_vocab_size: 768
  stack_embedding_dim: 16
  num_sparsecores: 32
}
```

## Use instead
A checkpoint saved with its layout: save the layout with each checkpoint
(`ocp.args.ProtoSave(embedding_spec_proto)` as an item of the `CheckpointManager`'s step), or
compare the layout the checkpoint was written with: `tpuemb diff OLD_LAYOUT NEW`.

## Fix safety
No fix.

## Options
Not in the default `--fail-on`; `--fail-on restore-error,silent-reinit,unverified-layout` makes a
CI job fail on it.

## References
- docs/jax.md, "Against an Orbax checkpoint"
"""
