"""`tpuemb diff old.keras new.keras` against Keras itself (`make test-keras`; skipped where
keras-rs is not installed): for each pair of layer configurations, the old model is built on
CPU with keras-rs, each table filled with its own values and saved; the new model is built and
loads the old file's weights (`model.load_weights`). What happened -- the load failed, a table
got another table's rows, a saved table was loaded nowhere -- is compared with diff's kinds
(restore-error, silent-reinit, orphaned-state) on the two saved files.

On CPU placement "auto" is the default device, so the saved weights are the default-device
tables (one EmbedReduce a table, by the place of its first feature); diff is told a TPU whose
"auto" is the default device too (`--tpu v4-8`: the JAX layer takes v5p and v6e devices for
SparseCore ones). The SparseCore half (the layer's own variables per stack) needs a TPU: not
here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
pytest.importorskip("keras_rs")

from click.testing import CliRunner

from tpuemb_cli.cli import main

Tables = dict[str, tuple[int, int]]
Features = dict[str, str]

OLD_TABLES: Tables = {"a": (100, 8), "b": (50, 8)}
OLD_FEATURES: Features = {"fa": "a", "fb": "b"}
SAME: Tables = {"a": (100, 8), "b": (100, 8)}

# (name, old tables, old features, new tables, new features)
CASES: list[tuple[str, Tables, Features, Tables, Features]] = [
    ("unchanged", OLD_TABLES, OLD_FEATURES, OLD_TABLES, OLD_FEATURES),
    (
        "table renamed",
        OLD_TABLES,
        OLD_FEATURES,
        {"a2": (100, 8), "b": (50, 8)},
        {"fa": "a2", "fb": "b"},
    ),
    (
        "tables listed the other way",
        OLD_TABLES,
        OLD_FEATURES,
        {"b": (50, 8), "a": (100, 8)},
        OLD_FEATURES,
    ),
    ("features listed the other way", OLD_TABLES, OLD_FEATURES, OLD_TABLES, {"fb": "b", "fa": "a"}),
    ("feature renamed past another", OLD_TABLES, OLD_FEATURES, OLD_TABLES, {"zz": "a", "fb": "b"}),
    ("same shapes, feature renamed past another", SAME, OLD_FEATURES, SAME, {"zz": "a", "fb": "b"}),
    ("same shapes, tables swapped", SAME, OLD_FEATURES, SAME, {"fa": "b", "fb": "a"}),
    ("vocabulary grown", OLD_TABLES, OLD_FEATURES, {"a": (120, 8), "b": (50, 8)}, OLD_FEATURES),
    ("dimension grown", OLD_TABLES, OLD_FEATURES, {"a": (100, 16), "b": (50, 8)}, OLD_FEATURES),
    (
        "table added last",
        OLD_TABLES,
        OLD_FEATURES,
        {**OLD_TABLES, "c": (10, 8)},
        {**OLD_FEATURES, "fc": "c"},
    ),
    ("table removed last", OLD_TABLES, OLD_FEATURES, {"a": (100, 8)}, {"fa": "a"}),
    ("table removed first", OLD_TABLES, OLD_FEATURES, {"b": (50, 8)}, {"fb": "b"}),
    ("same shapes, first table removed", SAME, OLD_FEATURES, {"b": (100, 8)}, {"fb": "b"}),
    (
        "table shared by a new feature",
        OLD_TABLES,
        OLD_FEATURES,
        OLD_TABLES,
        {**OLD_FEATURES, "fc": "a"},
    ),
    (
        "shared table unshared",
        OLD_TABLES,
        {**OLD_FEATURES, "fc": "a"},
        {**OLD_TABLES, "c": (100, 8)},
        {**OLD_FEATURES, "fc": "c"},
    ),
]


def _model(tables: Tables, features: Features) -> tuple[Any, Any]:
    import keras
    import keras_rs

    configs = {
        name: keras_rs.layers.TableConfig(
            name=name, vocabulary_size=rows, embedding_dim=dim, optimizer="adam"
        )
        for name, (rows, dim) in tables.items()
    }
    feature_configs = {
        name: keras_rs.layers.FeatureConfig(
            name=name,
            table=configs[table],
            input_shape=(4, 1),
            output_shape=(4, tables[table][1]),
        )
        for name, table in features.items()
    }
    inputs = {name: keras.Input(batch_shape=(4, 1), dtype="int32", name=name) for name in features}
    layer = keras_rs.layers.DistributedEmbedding(feature_configs)
    return keras.Model(inputs, layer(inputs)), layer


def _tables(layer: Any) -> dict[str, Any]:
    import numpy as np

    return {name: np.asarray(value) for name, value in layer.get_embedding_tables().items()}


def keras_verdict(
    old_tables: Tables,
    old_features: Features,
    new_tables: Tables,
    new_features: Features,
    folder: Path,
) -> tuple[set[str], Path, Path]:
    """What loading the old model's weights into the new one does, as diff's kinds; and the two
    saved files."""
    import numpy as np

    old_model, old_layer = _model(old_tables, old_features)
    # Each table its own values: table i holds i + 1 + row / 1000 in every column.
    old_layer.set_embedding_tables(
        {
            name: np.full(shape, index + 1.0, dtype="float32") + np.arange(shape[0])[:, None] / 1000
            for index, (name, shape) in enumerate(old_tables.items())
        }
    )
    saved = _tables(old_layer)
    old_path, new_path = folder / "old.keras", folder / "new.keras"
    old_model.save(old_path)
    new_model, new_layer = _model(new_tables, new_features)
    new_model.save(new_path)
    try:
        new_model.load_weights(old_path)
    except ValueError:
        return {"restore-error"}, old_path, new_path
    kinds: set[str] = set()
    loaded_from: set[str] = set()
    for name, values in _tables(new_layer).items():
        source = next(
            (
                old
                for old, held in saved.items()
                if held.shape == values.shape and np.array_equal(held, values)
            ),
            None,
        )
        if source is None:
            continue  # not loaded: Keras raised above, or a fresh table (none here)
        loaded_from.add(source)
        if source != name and (source in new_tables or name in old_tables):
            kinds.add("silent-reinit")  # another table's rows
    if set(saved) - loaded_from - set(new_tables):
        kinds.add("orphaned-state")
    return kinds, old_path, new_path


def diff_verdict(old_path: Path, new_path: Path) -> set[str]:
    result = CliRunner().invoke(
        main,
        [
            "diff",
            "--tpu",
            "v4-8",
            "--format",
            "json",
            "--fail-on",
            "none",
            str(old_path),
            str(new_path),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["summary"]
    return {kind for kind, found in summary.items() if found}


@pytest.mark.parametrize(
    ("name", "old_tables", "old_features", "new_tables", "new_features"), CASES
)
def test_diff_says_what_loading_the_saved_weights_does(
    name: str,
    old_tables: Tables,
    old_features: Features,
    new_tables: Tables,
    new_features: Features,
    tmp_path: Path,
) -> None:
    kinds, old_path, new_path = keras_verdict(
        old_tables, old_features, new_tables, new_features, tmp_path
    )
    said = diff_verdict(old_path, new_path)
    print(f"{name}: Keras {sorted(kinds) or 'loads every table'}; tpuemb diff {sorted(said)}")
    if "restore-error" in kinds:
        assert "restore-error" in said
    else:
        assert said == kinds
