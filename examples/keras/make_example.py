"""Writes examples/keras/ranking.keras: a small ranking model with a Keras-RS
`DistributedEmbedding`, saved by keras-rs on CPU, with two mistakes that pass every CPU test:

1. the `items` table's optimizer is `Adagrad(clipnorm=1.0)`: Keras-RS's SparseCore conversion
   refuses `clipnorm` (on the TPU the layer fails while it is built); on CPU, placement "auto"
   resolves to the default device and the conversion never runs;
2. the `category` feature declares `output_shape=(256, 8)` on a table of dimension 16: the layer
   returns (256, 16), and the Dense layer after it was built for the declared 8: the model builds
   and saves, and calling it fails in that Dense layer ("expected axis -1 of input shape to have
   value 56, but received input with shape (256, 64)"), far from the cause.

Run from the repository root in an environment with keras-rs, keras and jax (`make test-keras`
builds one in build/venv-keras):

    KERAS_BACKEND=jax build/venv-keras/bin/python examples/keras/make_example.py
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras
import keras_rs

BATCH = 256  # the global batch: Keras-RS's feature shapes start with it

users = keras_rs.layers.TableConfig(
    name="users",
    vocabulary_size=100,
    embedding_dim=16,
    optimizer=keras.optimizers.Adagrad(learning_rate=0.05),
)
items = keras_rs.layers.TableConfig(
    name="items",
    vocabulary_size=200,
    embedding_dim=16,
    optimizer=keras.optimizers.Adagrad(learning_rate=0.05, clipnorm=1.0),  # mistake 1
)
categories = keras_rs.layers.TableConfig(
    name="categories",
    vocabulary_size=20,
    embedding_dim=16,
    optimizer=keras.optimizers.Adagrad(learning_rate=0.05),
)
features = {
    "user": keras_rs.layers.FeatureConfig(
        name="user", table=users, input_shape=(BATCH, 1), output_shape=(BATCH, 16)
    ),
    "item": keras_rs.layers.FeatureConfig(
        name="item", table=items, input_shape=(BATCH, 1), output_shape=(BATCH, 16)
    ),
    # The user's recently viewed items share the items table.
    "history": keras_rs.layers.FeatureConfig(
        name="history", table=items, input_shape=(BATCH, 10), output_shape=(BATCH, 16)
    ),
    "category": keras_rs.layers.FeatureConfig(
        name="category", table=categories, input_shape=(BATCH, 1), output_shape=(BATCH, 8)
    ),  # mistake 2
}


def main() -> None:
    inputs = {
        name: keras.Input(batch_shape=feature.input_shape, dtype="int32", name=name)
        for name, feature in features.items()
    }
    embedded = keras_rs.layers.DistributedEmbedding(features, name="embedding")(inputs)
    joined = keras.layers.Concatenate()([embedded[name] for name in features])
    hidden = keras.layers.Dense(32, activation="relu")(joined)
    score = keras.layers.Dense(1, name="score")(hidden)
    model = keras.Model(inputs, score, name="ranking")
    model.save(Path(__file__).parent / "ranking.keras")


if __name__ == "__main__":
    main()
