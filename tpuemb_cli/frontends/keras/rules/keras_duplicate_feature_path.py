"""Two Keras-RS features at one path: the layer keeps one, and both outputs are its.

## What it does
Reports each feature of a `DistributedEmbedding` layer whose place in `feature_configs`, its
keys joined by `.`, is also a later feature's, where both go to the same placement (the
SparseCores, or the default device): `{"a.b": ..., "a": {"b": ...}}`, or `{"a": [f0],
"a.0": ...}`.

## Why is this bad?
The layer builds, trains and saves without a word, but it holds one feature for the path: the
later one, in `keras.tree`'s order (each level's keys sorted). Both outputs are that feature's
lookup of its own ids in its own table; the other feature's ids are never read, and its table
is never built unless another feature looks it up. The model trains on a copy of one input
where it expects two.

## What Keras-RS does
keras-rs 0.4.0's `_init_feature_configs_structures` walks `keras.tree.flatten_with_path`,
joins each path with `"."` and stores the feature in a dict per placement under that text, so
the later feature replaces the earlier; `build` and `call` fill the inputs by the same key.
(Checked on CPU with the JAX backend: `{"a.b": f1 (table t1), "a": {"b": f2 (table t2)}}`
builds only t1 -- on the default device and on the Keras oracle's simulated SparseCore -- and
`a`/`b`'s output is row 0 of t1 for the ids of `a.b`, not row 3 for its own; the TensorFlow
backend's default device builds only t1 too.)

## Example
```python
feature_configs = {
    "query.id": keras_rs.layers.FeatureConfig(name="query_id", table=queries, ...),
    "query": {"id": keras_rs.layers.FeatureConfig(name="query_token", table=tokens, ...)},
}
```

As its saved `config.json` holds it:

```json
"feature_configs": {"query.id": {"name": "query_id", "table": 0, ...},
                    "query": {"id": {"name": "query_token", "table": 1, ...}}}
```

## Use instead
Give every feature a path of its own: keys without `.` in them, or a different key.

## Fix safety
No automatic fix: tpuemb does not write `.keras` files; change the model's code.

## Options
`--tpu` / `tpu` and `--keras-backend` / `keras-backend`: where `"auto"` tables go (two features
of one path placed apart do not clash).

## References
- [`keras_rs/src/layers/embedding/base_distributed_embedding.py`](https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding/base_distributed_embedding.py),
  `_init_feature_configs_structures`, `build`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.rules.lib.layers import feature_label, feature_path, layer_label
from tpuemb_cli.frontends.keras.spec.conversion import shadowed_features
from tpuemb_cli.model.findings import Violation


def check_keras(model: Any, topology: Any) -> Iterator[Violation]:
    for li, layer in enumerate(model.layers):
        for f, kept in sorted(shadowed_features(layer, topology).items()):
            feature, winner = layer.features[f], layer.features[kept]
            table, kept_table = layer.tables[feature.table], layer.tables[winner.table]
            yield Violation(
                (*feature_path(li, f), "key"),
                f"{feature_label(feature)} and {feature_label(winner)} of {layer_label(layer)} "
                f"are both at path {feature.key!r} (their keys joined by '.'): Keras-RS keeps "
                f"one feature a path, the later, {winner.name!r} (table {kept_table.name!r}): "
                f"the ids of {feature.name!r} are never read, and its output is a copy of the "
                f"output of {winner.name!r}"
                + (
                    ""
                    if feature.table == winner.table
                    else f", from table {kept_table.name!r} instead of {table.name!r}"
                ),
                "give each feature a path of its own: a key without '.' in it, or another key",
            )
