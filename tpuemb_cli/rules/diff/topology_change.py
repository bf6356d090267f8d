"""Hosts, cores, sharding or SPMD changed: the checkpoint restores onto the new topology.

## What it does
Reports, in `tpuemb diff`, a change of `num_hosts`, `num_tensor_cores`, `sharding_strategy` or
the SPMD settings (in a spec, its `topology`).

## Why is this bad?
It is not, for the checkpoint: it is reported so that a review sees it. The same config on
another topology can run out of memory or change the batch each core sees.

## What TensorFlow does
The mid-level API splits each table's rows over the hosts (`make_sharded_variable_creator` in
[tpu_embedding_v2.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py))
and saves the shards as slices of one full variable (`ShardedVariable` in
[sharded_variable.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/distribute/sharded_variable.py)),
which restores into another number of shards.

## What jax-tpu-embedding does
The SparseCores in all (`num_sparsecores`: devices x SparseCores per device) change: unlike
TensorFlow's, a stacked checkpoint does not restore onto them as it is -- each stack is padded and
dealt out anew, and `tpuemb diff` says what that does to each (a `restore-error` or a
`silent-reinit`); the library's restacking carries it across, in
[table_stacking.py](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py).

## Example
```pbtxt
# old: num_hosts: 2
num_hosts: 4
```

## Use instead
```pbtxt
num_hosts: 4
```
(nothing to change: the checkpoint restores).

## Fix safety
No fix.

## Options
Not in the default `--fail-on`.

## References
- docs/diff.md, "topology-change"
"""
