"""Two tables of one name on a Keras-RS layer's SparseCores: the JAX conversion keeps one.

## What it does
With the JAX backend, reports each table that goes to the SparseCores under the name of another
one of the layer's tables already converted there (two `TableConfig` objects named alike; one
object shared by several features is one table, and fine).

## Why is this bad?
The layer builds, trains and saves without a word, but only the first table exists: the features
of the second look up the first one's rows, with its vocabulary, dimension, optimizer and
limits. The second table's own settings are never used, a feature that expects its dimension
gets the first one's, and two features meant to be independent share their embeddings.

## What Keras-RS does
keras-rs 0.4.0's JAX `keras_to_jte_feature_configs` converts the features in the order of their
sorted paths and keeps one `TableSpec` per table *name* (`table_spec_map`): the first feature of
a name converts its table, every later one gets that spec. So `sparsecore_build` creates one
stacked variable (`var:items:table`) for both, and `get_config` still saves both tables.
(Checked on CPU with the Keras oracle's simulated SparseCore: an SGD table of 64 rows and an
Adagrad one of 200, both named `items`, build one 64-row table variable and no Adagrad slot.)
Elsewhere it is not so:

- TensorFlow's conversion makes one TableConfig per table object, and `TPUEmbeddingV2` refuses
  two of one name (`ValueError: Tables must have a unique name`): rule `spec-duplicate-table-name`
  reports it on the spec.
- Tables on the default device (`"default_device"`, or `"auto"` without SparseCores: a CPU) are
  one `EmbedReduce` layer per table object and train apart; only `get_embedding_tables()`, a dict
  by table name, returns one of them.

## Example
```json
"tables": [{"name": "items", "vocabulary_size": 500, "embedding_dim": 8},
           {"name": "items", "vocabulary_size": 64, "embedding_dim": 4}]
```

## Use instead
```json
"tables": [{"name": "items", "vocabulary_size": 500, "embedding_dim": 8},
           {"name": "tags", "vocabulary_size": 64, "embedding_dim": 4}]
```

To share one table, pass the same `TableConfig` object to both features.

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--keras-backend` / `keras-backend`: the backend.

## References
- [`keras_rs/src/layers/embedding/jax/config_conversion.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/jax/config_conversion.py),
  `_keras_to_jte_feature_config`, `keras_to_jte_feature_configs`
- [`keras_rs/src/layers/embedding/base_distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/base_distributed_embedding.py),
  `_default_device_init`, `get_embedding_tables`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import layer_label, table_path
from tpuemb_cli.frontends.keras.spec.conversion import replaced_tables
from tpuemb_cli.model.findings import Violation


def _described(table: Any) -> str:
    optimizer = table.optimizer.class_name or "adam"
    return f"{table.vocabulary_size} x {table.embedding_dim}, {optimizer}"


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer in enumerate(model.layers):
        for t, kept in sorted(replaced_tables(layer, topology).items()):
            table = layer.tables[t]
            features = ", ".join(repr(f.name) for f in layer.features if f.table == t)
            yield Violation(
                (*table_path(li, t), "name"),
                f"tables {kept} and {t} of {layer_label(layer)} are both named {table.name!r} "
                "and go to the SparseCores: Keras-RS's JAX conversion keeps one table per name, "
                f"table {kept} ({_described(layer.tables[kept])}): table {t}'s features "
                f"({features}) read table {kept}'s rows, and table {t} "
                f"({_described(table)}) is never built",
                f"give table {t} a name of its own, or pass the same TableConfig object to "
                "share one table",
            )
