"""A learning-rate schedule shared by two tables' optimizers: stacked live, apart once saved.

## What it does
Reports a table whose optimizer's learning-rate schedule is the same object as an earlier
table's (each table with its own optimizer object), with the JAX backend. On a live layer
(`lint_keras`, `spec_from_keras`) tpuemb sees the one object; in a saved `.keras` file, the
`shared_object_id` Keras's saving writes on the second sighting of an object -- on the second
schedule only, not on the first, so the loaded model builds two.

## Why is this bad?
jax-tpu-embedding stacks tables whose optimizers are equal, and two optimizers with a schedule
are equal when the schedule is one object. The training script's layer stacks the two tables
together; the model loaded from the file it saved has two schedule objects, and stacks them
apart. The weights the SparseCore layer saved hold one stacked table variable, which the loaded
layer's two per-table variables do not take: `keras.saving.load_model` raises `ValueError`
("Layer 'e' expected 3 variables, but received 2 variables during loading"). A model rebuilt
from the file's config (weights aside) has other stacked variables, other memory and other input
preprocessing: it trains with other stacks than the script that saved it.
tpuemb's own spec of such a layer (as of the file) keeps the tables apart.

## What Keras-RS does
Measured with keras-rs 0.4.0, keras 3.15.1 and jax-tpu-embedding 0.1.0 (SparseCore path
simulated on CPU): two `SGD(learning_rate=schedule)` with one `ExponentialDecay` object stack as
`a_b` on the live layer; `model.save()` writes the second schedule with `shared_object_id` and
the first without; the model deserialized from that config.json (and
`DistributedEmbedding.from_config(layer.get_config())`) stacks `a` and `b` apart, and
`keras.saving.load_model` of the file raises `ValueError` ("expected 3 variables, but received
2"). One optimizer object shared by both tables is written with `shared_object_id` on both and
loads as one object: its tables stay stacked, and tpuemb does not report it.

## Example
```python
schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=100, decay_rate=0.9)
a = keras_rs.layers.TableConfig(name="a", ..., optimizer=keras.optimizers.SGD(schedule))
b = keras_rs.layers.TableConfig(name="b", ..., optimizer=keras.optimizers.SGD(schedule))
```

As `model.save()` writes the two tables' optimizers in `config.json` (the second schedule alone
marked):

```json
{"class_name": "SGD", "config": {"learning_rate": {"class_name": "ExponentialDecay", ...}}}
{"class_name": "SGD", "config": {"learning_rate": {"class_name": "ExponentialDecay", ...,
                                                   "shared_object_id": 140502948753808}}}
```

## Use instead
Share the optimizer object, which Keras saves and loads as one (the tables stay stacked):

```python
sgd = keras.optimizers.SGD(schedule)
a = keras_rs.layers.TableConfig(name="a", ..., optimizer=sgd)
b = keras_rs.layers.TableConfig(name="b", ..., optimizer=sgd)
```

or give each table a schedule of its own, and `table_stacking` the stacks you want.

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`: JAX only (the TensorFlow backend was not measured).

## References
- [`keras/src/saving/serialization_lib.py`](https://github.com/keras-team/keras/blob/v3.15.1/keras/src/saving/serialization_lib.py),
  `record_object_after_serialization`, `ObjectSharingScope`
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  tables grouped by padded dimension, optimizer and combiner
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import (
    layer_label,
    table_label,
    table_path,
    used_tables,
)
from tpuemb_cli.model.findings import Violation


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    if topology.backend != "jax":
        return
    for li, layer in enumerate(model.layers):
        for t in used_tables(layer):
            table = layer.tables[t]
            partner = table.optimizer.schedule_shared_with
            if not partner or table.placement == "default_device":
                continue
            other = "another table's" if partner == "?" else f"table {partner!r}'s"
            yield Violation(
                (*table_path(li, t), "optimizer", "schedule_shared_with"),
                f"{table_label(layer, t)} of {layer_label(layer)} has a learning-rate schedule "
                f"that is one object with {other}: the live layer stacks their tables "
                "together, but Keras saves the schedule twice and the loaded model has two, "
                "which stack apart: the weights a SparseCore layer saved (one stacked table) do "
                "not load (load_model raises ValueError, 'expected N variables, but received "
                "M'), and a model rebuilt from the file trains with other stacks than the script "
                "that saved it",
                "share one optimizer object between the tables (saved and loaded as one), or "
                "give each its own schedule",
            )
