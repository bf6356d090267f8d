"""State that neither saved file holds: loading leaves those tables at their initializers.

## What it does
Reports, in `tpuemb diff OLD.keras NEW.keras` with `--keras-backend tensorflow`, each Keras-RS
`DistributedEmbedding` layer of the new model whose tables go to the TPU's embedding hardware
(the SparseCores of v5p and v6e, the embedding engine of v2-v4), naming those tables: the saved
model holds none of their values, whatever changed between the two models.

## Why is this bad?
Training resumed from the `.keras` file (`keras.saving.load_model`, `model.load_weights`)
starts those tables afresh while every other weight comes back: the model has silently forgotten
its embeddings, and nothing fails.

## What TensorFlow does
`TPUEmbeddingV2` and `TPUEmbedding` create the tables and their slots as TensorFlow variables of
their own (`_create_variables_and_slots` in
[tpu_embedding_v3.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py)
and [tpu_embedding_v2.py](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py)),
which a `tf.train.Checkpoint` of that object saves and restores; no Keras file holds them.

## What jax-tpu-embedding does
Nothing of this: with the JAX backend the layer keeps its stacks as Keras variables of its own,
which the `.keras` file holds (rules `restore-error` and `silent-reinit` judge them).

## What Keras-RS does
keras-rs 0.4.0's TensorFlow layer builds those tables into a `TPUEmbeddingV2` (`TPUEmbedding` on
a chip of embedding feature V1) that it sets up under `no_automatic_dependency_tracking`
(`_sparsecore_init`); that object is no Keras layer or variable, and Keras 3's saving walks only
those (`saving_lib._walk_saveable`). What the layer saves of them is one variable of shape
`(1,)`, its `_gradient_trap_dummy`; `tf.train.Checkpoint(model=model)` holds nothing of the layer
either. (Checked on CPU by `make test-tf`: keras-rs and TensorFlow 2.21 build the real
`TPUEmbeddingV2` and `TPUEmbedding` under a stand-in TPUStrategy, save the model, and load it
into another one: the tables come back at their initial values.) The JAX backend's layer saves
its SparseCore stacks as its own variables, and this is never reported for it.

## Example
```json
"tables": [{"name": "users", "vocabulary_size": 1000000, "embedding_dim": 32,
            "placement": "sparsecore"}]
```
diffed with `--keras-backend tensorflow --tpu v5p-8`.

## Use instead
Checkpoint the layer's TPU embedding object beside the model
(`tf.train.Checkpoint(embedding=layer._tpu_embedding)`: TensorFlow's own checkpoint of the
tables and slots; `tf.train.Checkpoint(model=model)` holds none of the layer's tables), or train
with the JAX backend. Where that is done, acknowledge it with a `[[suppress]]` entry for
`unsaved-state` (`file = "model.keras"`, the archive, as configuration names it).

## Fix safety
No fix: tpuemb does not write `.keras` files.

## Options
Not in the default `--fail-on`; `--fail-on restore-error,silent-reinit,unsaved-state` makes a
CI job fail on it. `tpuemb check` reports the same models with rule `keras-tables-not-saved`.

## References
- [`keras_rs/src/layers/embedding/tensorflow/distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/tensorflow/distributed_embedding.py),
  `_sparsecore_init`, `_trackable_children`
- [`keras/src/saving/saving_lib.py`](https://github.com/keras-team/keras/blob/v3.15.1/keras/src/saving/saving_lib.py),
  `_save_state`, `_walk_saveable`
- docs/keras.md, "diff"
"""
