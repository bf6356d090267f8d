"""Makes the Keras-RS models of `tpuemb diff`'s README sample with keras-rs 0.4.0 on CPU.

    KERAS_BACKEND=jax python tests/data/keras-diff/make_diff.py  # keras 3.15.1, keras-rs 0.4.0

- old.keras: a DistributedEmbedding with two tables of one shape, `movies` and `shows`, read by
  the features `movie` and `show`, saved with its weights.
- new.keras: the same model with the feature `movie` renamed `title`. Keras saves the tables on
  the default device by the place of their first feature (features sorted by path): `title`
  sorts after `show`, so `new.load_weights("old.keras")` succeeds and gives `movies` the rows of
  `shows` and `shows` those of `movies` (tests/test_keras_diff_oracle.py checks such pairs).
"""

import os
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # type: ignore[import-not-found, unused-ignore]
import keras_rs  # type: ignore[import-not-found, unused-ignore]

HERE = Path(__file__).parent


def model(movie_feature: str) -> keras.Model:
    tables = {
        name: keras_rs.layers.TableConfig(
            name=name, vocabulary_size=1000, embedding_dim=16, optimizer="adagrad"
        )
        for name in ("movies", "shows")
    }
    features = {
        movie_feature: keras_rs.layers.FeatureConfig(
            name=movie_feature, table=tables["movies"], input_shape=(32, 1), output_shape=(32, 16)
        ),
        "show": keras_rs.layers.FeatureConfig(
            name="show", table=tables["shows"], input_shape=(32, 1), output_shape=(32, 16)
        ),
    }
    inputs = {name: keras.Input(batch_shape=(32, 1), dtype="int32", name=name) for name in features}
    layer = keras_rs.layers.DistributedEmbedding(features)
    return keras.Model(inputs, layer(inputs), name="recommender")


if __name__ == "__main__":
    model("movie").save(HERE / "old.keras")
    model("title").save(HERE / "new.keras")
