"""Checkpointed state that nothing restores any more.

## What it does
Reports, in `tpuemb diff`, a change after which a checkpoint written under the old config holds
state that no variable of the new config asks for: a removed (or renamed) table, the slots an
optimizer no longer has (Adagrad -> SGD leaves `accumulators`), a config file removed since the
revision compared with.

## Why is this bad?
The state is dropped on restore without a word. When it was not meant (a table removed by a bad
merge), what it had learned is lost with the next checkpoint.

## What TensorFlow does
`restore()` succeeds; only `assert_consumed()` reports checkpointed values that were not
restored.

## What jax-tpu-embedding does
A table no stack of the new `EmbeddingSpecProto` holds: its rows in the checkpoint's stack go
nowhere, and the library's restacking takes only the new layout's tables
(`stack_and_shard_feature_tables` in
[table_stacking.py](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py)).

## Example
```pbtxt
# old: adagrad {}
optimization_parameters { stochastic_gradient_descent {} }
```

## Use instead
```pbtxt
optimization_parameters { adagrad {} }
```
or acknowledge the change: `# tpuemb: ignore[orphaned-state] accumulators no longer needed`.

## Fix safety
No fix.

## Options
Not in the default `--fail-on`.

## References
- docs/diff.md, "orphaned-state"
"""
