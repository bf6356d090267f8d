"""The state restores, but the restored run trains differently from the run it continues.

## What it does
Reports, in `tpuemb diff`, a change of how a table trains or what it is fed: the optimizer (and a
slot restored by name from another optimizer, which reads it as its own), its hyper-parameters,
the learning rate (constant or dynamic tag), clipping, weight decay, gradient accumulation, a
feature now looking up another table, a feature's shapes, new or removed features, the mode, the
batch size, pipelining.

## Why is this bad?
Often it is meant; when it is not (a learning rate changed by a merge), the continued run
diverges from the one it continues, and nothing in the restore says so.

## What TensorFlow does
Nothing: the checkpoint holds state, not hyper-parameters, and restores whatever they are now.

## What jax-tpu-embedding does
For two `EmbeddingSpecProto` files: a stack's optimizer, learning rate or settings (0.2.0 records
them), a table's combiner, a stack's `max_ids_per_partition` / `max_unique_ids_per_partition`
(ids beyond them are dropped) or `total_sample_count`, and a table's rows or width that change
within its padding (the entry's shape stays; the new rows start from the padding's initial
values).

## Example
```pbtxt
# old: learning_rate { constant: 0.1 }
optimization_parameters { learning_rate { constant: 0.5 } adagrad {} }
```

## Use instead
```pbtxt
optimization_parameters { learning_rate { constant: 0.1 } adagrad {} }
```
or keep the change, and acknowledge it if your gate fails on this kind.

## Fix safety
No fix.

## Options
Not in the default `--fail-on`.

## References
- docs/diff.md, "training-change"
"""
