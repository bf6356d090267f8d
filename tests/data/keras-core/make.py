"""Makes the Keras-RS fixtures of tests/test_keras_*.py with keras-rs 0.4.0 on CPU.

    KERAS_BACKEND=jax python tests/data/keras-core/make.py   # keras 3.15.1, keras-rs 0.4.0, jax

- clean.keras: a Functional model with one DistributedEmbedding of three tables (Adagrad,
  Adam, "sgd"), one shared by two features; nothing to report with --tpu v5p-8.
- mistakes.keras: the layer inside a Functional sub-model (a nested model): an output_shape
  narrower than its table, Adagrad with clipnorm and epsilon, AdamW with clipvalue, SGD with
  momentum, RMSprop, and a default_device table whose RMSprop is never converted.
- placement.keras: mistakes.keras's configuration with one table's placement written
  "sparse_core" (the layer refuses that value, so only an edited config.json can hold it).
- model/config.json: mistakes.keras's config.json, pretty-printed (a model folder's).
"""

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # type: ignore[import-not-found, unused-ignore]
import keras_rs  # type: ignore[import-not-found, unused-ignore]

HERE = Path(__file__).parent
TableConfig, FeatureConfig = keras_rs.layers.TableConfig, keras_rs.layers.FeatureConfig


def _model(features: dict[str, Any], name: str, nested: bool) -> Any:
    layer = keras_rs.layers.DistributedEmbedding(features)
    inputs = {
        key: keras.Input(
            shape=tuple(f.input_shape[1:]), batch_size=f.input_shape[0], dtype="int32", name=key
        )
        for key, f in features.items()
    }
    outputs = layer(inputs)
    if nested:
        inner = keras.Model(inputs, outputs, name="tower")
        outer_inputs = {
            key: keras.Input(
                shape=tuple(f.input_shape[1:]),
                batch_size=f.input_shape[0],
                dtype="int32",
                name=f"outer_{key}",
            )
            for key, f in features.items()
        }
        outputs = inner(outer_inputs)
        inputs = outer_inputs
    merged = keras.layers.Concatenate()([outputs[key] for key in sorted(outputs)])
    return keras.Model(inputs, merged, name=name)


def clean() -> None:
    users = TableConfig(
        name="users",
        vocabulary_size=1000,
        embedding_dim=16,
        optimizer=keras.optimizers.Adagrad(learning_rate=0.05),
    )
    items = TableConfig(
        name="items",
        vocabulary_size=500,
        embedding_dim=8,
        optimizer=keras.optimizers.Adam(learning_rate=0.001),
    )
    tags = TableConfig(name="tags", vocabulary_size=64, embedding_dim=4, optimizer="sgd")
    features = {
        "user": FeatureConfig(name="user", table=users, input_shape=(32, 1), output_shape=(32, 16)),
        "friend": FeatureConfig(
            name="friend", table=users, input_shape=(32, 1), output_shape=(32, 16)
        ),
        "item": FeatureConfig(name="item", table=items, input_shape=(32, 1), output_shape=(32, 8)),
        "tag": FeatureConfig(name="tag", table=tags, input_shape=(32, 1), output_shape=(32, 4)),
    }
    _model(features, "clean", nested=False).save(HERE / "clean.keras")


def mistakes() -> None:
    users = TableConfig(
        name="users",
        vocabulary_size=1000,
        embedding_dim=16,
        optimizer=keras.optimizers.Adagrad(learning_rate=0.1, clipnorm=1.0, epsilon=1e-5),
    )
    items = TableConfig(
        name="items",
        vocabulary_size=500,
        embedding_dim=8,
        optimizer=keras.optimizers.AdamW(learning_rate=0.001, clipvalue=0.5),
    )
    tags = TableConfig(
        name="tags",
        vocabulary_size=64,
        embedding_dim=4,
        optimizer=keras.optimizers.SGD(momentum=0.9),
    )
    genres = TableConfig(
        name="genres", vocabulary_size=32, embedding_dim=4, optimizer=keras.optimizers.RMSprop()
    )
    small = TableConfig(
        name="small",
        vocabulary_size=16,
        embedding_dim=2,
        optimizer=keras.optimizers.RMSprop(),
        placement="default_device",
    )
    features = {
        "user": FeatureConfig(name="user", table=users, input_shape=(32, 1), output_shape=(32, 8)),
        "item": FeatureConfig(name="item", table=items, input_shape=(32, 1), output_shape=(32, 8)),
        "tag": FeatureConfig(name="tag", table=tags, input_shape=(32, 1), output_shape=(32, 4)),
        "genre": FeatureConfig(
            name="genre", table=genres, input_shape=(32, 1), output_shape=(32, 4)
        ),
        "small": FeatureConfig(
            name="small", table=small, input_shape=(32, 1), output_shape=(32, 2)
        ),
    }
    model = _model(features, "mistakes", nested=True)
    model.save(HERE / "mistakes.keras")
    # The layer returns the table's width whatever output_shape says (TE761's claim).
    import numpy as np

    inner = model.get_layer("tower")
    layer = next(x for x in inner.layers if type(x).__name__ == "DistributedEmbedding")
    out = layer({k: np.zeros((32, 1), dtype="int32") for k in features})
    assert tuple(out["user"].shape) == (32, 16), out["user"].shape


def edited() -> None:
    with zipfile.ZipFile(HERE / "mistakes.keras") as archive:
        config = json.loads(archive.read("config.json"))
    folder = HERE / "model"
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    text = json.dumps(config).replace('"placement": "auto"', '"placement": "sparse_core"', 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", text)
        archive.writestr("metadata.json", json.dumps({"keras_version": keras.__version__}))
    (HERE / "placement.keras").write_bytes(buffer.getvalue())


if __name__ == "__main__":
    clean()
    mistakes()
    edited()
