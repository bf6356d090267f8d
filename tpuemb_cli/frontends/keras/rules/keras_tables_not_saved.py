"""A Keras-RS layer's TPU embedding tables that the TensorFlow backend never saves.

## What it does
With the TensorFlow backend, reports each `DistributedEmbedding` layer with tables that go to
the TPU's embedding hardware -- the SparseCores (`TPUEmbeddingV2`, v5p and v6e) or the
embedding engine (`TPUEmbedding`, v2-v4) -- naming them: neither `model.save()` nor
`model.save_weights()` writes their values, nor does `tf.train.Checkpoint(model=model)`.
Not reported with the JAX backend, whose layer saves its SparseCore stacks, nor on a chip whose
embedding feature is not known (v5e, TPU7x).

## Why is this bad?
Everything looks saved: the file loads without a warning, the dense weights come back, and the
embedding tables -- usually most of what a recommendation model learned -- restart from their
initializers. A job resumed from its last `.keras` file silently trains from scratch embeddings.

## What Keras-RS does
keras-rs 0.4.0's TensorFlow `DistributedEmbedding` builds those tables into a `TPUEmbeddingV2`
(or `TPUEmbedding`) in `_sparsecore_init`, which runs under `no_automatic_dependency_tracking`:
the object is neither a Keras layer nor a Keras variable, so Keras 3's saving, which walks only
those (`saving_lib._walk_saveable`), never reaches it. The layer's one saved variable for them
is `_gradient_trap_dummy`, of shape `(1,)`, and its `_trackable_children` give
`tf.train.Checkpoint` nothing. Tables on the default device are `EmbedReduce` sub-layers and are
saved. (Checked on CPU by `make test-tf`: keras-rs 0.4.0 and TensorFlow 2.21 build the real
`TPUEmbeddingV2` and `TPUEmbedding` under a stand-in TPUStrategy; the saved weights file holds
`(1,)` and the default-device tables only, and a model loaded from it gets its tables' initial
values back, not the trained ones.)

## Example
```json
"tables": [{"name": "users", "vocabulary_size": 1000000, "embedding_dim": 32,
            "placement": "auto"}]
```
linted with `--keras-backend tensorflow --tpu v5p-8`.

## Use instead
Checkpoint the layer's TPU embedding object beside the model:
```python
embedding_checkpoint = tf.train.Checkpoint(embedding=layer._tpu_embedding)
embedding_checkpoint.write(path)  # the tables and their optimizer slots
model.save("model.keras")  # the default-device tables and the rest of the model
```
(a private attribute of keras-rs 0.4.0: pin the version; `tf.train.Checkpoint(model=model)`
holds none of the layer's tables, not even the default-device ones), or train with the JAX
backend, whose `.keras` file holds them all. Where that is done, acknowledge the finding with a
`[[suppress]]` entry.

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`: the backend; `--tpu` / `tpu`: the chip (none named: a
SparseCore chip is assumed, as for the other TensorFlow-backend rules).

## References
- [`keras_rs/src/layers/embedding/tensorflow/distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/tensorflow/distributed_embedding.py),
  `_sparsecore_init`, `_trackable_children`
- [`keras/src/saving/saving_lib.py`](https://github.com/keras-team/keras/blob/v3.15.1/keras/src/saving/saving_lib.py),
  `_save_state`, `_walk_saveable`
- rule `unsaved-state` (`tpuemb diff`)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import layer_label, table_path
from tpuemb_cli.frontends.keras.spec.conversion import unsaved_tables
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import listed


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    if topology.backend != "tensorflow":
        return
    for li, layer in enumerate(model.layers):
        unsaved = unsaved_tables(layer, topology)
        if not unsaved:
            continue
        names = [layer.tables[t].name for t in unsaved]
        shown = listed(names)
        many = len(names) > 1
        fresh = "them from their initializers" if many else "it from its initializer"
        yield Violation(
            (*table_path(li, unsaved[0]), "placement"),
            f"{layer_label(layer)} keeps table{'s' if many else ''} {shown} in "
            f"{topology.library()} ({topology.engine()}), which keras-rs 0.4.0's TensorFlow "
            "layer sets up outside Keras's tracking: model.save() and save_weights() write "
            f"none of {'their' if many else 'its'} values (only a (1,) gradient-trap "
            "variable), tf.train.Checkpoint(model) holds nothing of the layer, and a model "
            f"loaded from the file starts {fresh}",
            "checkpoint the layer's TPU embedding object yourself "
            "(tf.train.Checkpoint(embedding=layer._tpu_embedding)) beside model.save() or "
            "save_weights(), which hold the default-device tables (tf.train.Checkpoint(model) "
            "holds none of the layer's tables), or train with the JAX backend, whose .keras "
            "file holds them all",
        )
