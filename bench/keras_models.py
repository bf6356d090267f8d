"""Keras-RS models of many tables and of many layers (issue 28, P2); ``python -m bench.keras_models
[repeat]`` runs these lines alone, and writes the models to a folder when given one
(``--write DIR``: tables1k.keras, tables10k.keras, layers100.keras, layers1k.keras).

`tpuemb check --keras-backend jax --format json` in a process of its own (its time from before the
CLI's imports to its exit, bench/sparsecore.py's `command`), best of ``repeat``:

- a model of one DistributedEmbedding layer of 10,000 tables against one of 1,000 (target <= 11:
  linear), without a TPU named (the devices unknown: each of the four groups, dimension x
  optimizer, is one stack) and with `--tpu v5p-8` (the tables' activations, dimension x samples
  a SparseCore, drawn so that each group splits into hundreds of stacks). Auto-stacking split
  each group first-fit under the activation limit by summing every stack's tables again for
  every table, and every JAX rule stacked the layer again: 16-32 s for 10,000 tables;
- with `--tpu v5p-8`, a model of 1,000 such layers of 10 tables against one of 100 layers
  (target <= 11).
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path
from typing import Any

from bench.sparsecore import Measured, bench_main, command

SIZES = (1_000, 10_000)
LAYERS = (100, 1_000)
TABLES_A_LAYER = 10
OPTIONS = ("--keras-backend", "jax", "--format", "json")

_OPTIMIZERS: tuple[dict[str, Any], ...] = (
    {
        "module": "keras.optimizers",
        "class_name": "Adagrad",
        "config": {"name": "adagrad", "learning_rate": 0.05, "initial_accumulator_value": 0.1},
        "registered_name": None,
    },
    {
        "module": "keras.optimizers",
        "class_name": "SGD",
        "config": {"name": "sgd", "learning_rate": 0.01},
        "registered_name": None,
    },
)


def _layer(name: str, tables: int, drawn: random.Random, prefix: str = "") -> dict[str, Any]:
    """A DistributedEmbedding layer of ``tables`` tables, one feature each: dimension 8 or 16,
    Adagrad or SGD, and a batch of 4,096 to 65,536 (on a v5p-8's 16 SparseCores a table's
    activations are 8 KiB to 256 KiB: stacks of 8 to 250 tables under the 2 MiB limit)."""
    specs = []
    features = {}
    for index in range(tables):
        dim = (8, 16)[index % 2]
        batch = drawn.choice((4_096, 16_384, 65_536))
        specs.append(
            {
                "name": f"{prefix}t{index}",
                "vocabulary_size": 1_000 + index,
                "embedding_dim": dim,
                "optimizer": _OPTIMIZERS[index // 2 % 2],
                "combiner": "mean",
                "placement": "auto",
                "max_ids_per_partition": 256,
                "max_unique_ids_per_partition": 256,
            }
        )
        feature = f"{prefix}f{index}"
        features[feature] = {
            "name": feature,
            "table": index,
            "input_shape": [batch, 1],
            "output_shape": [batch, dim],
        }
    return {
        "module": "keras_rs.src.layers.embedding.distributed_embedding",
        "class_name": "DistributedEmbedding",
        "config": {
            "name": name,
            "trainable": True,
            "feature_configs": features,
            "tables": specs,
            "table_stacking": "auto",
        },
    }


def model(layers: int, tables: int) -> bytes:
    """A .keras archive of ``layers`` layers of ``tables`` tables each."""
    drawn = random.Random(28)
    config = {
        "module": "keras.src.models.functional",
        "class_name": "Functional",
        "config": {
            "name": "bench",
            "trainable": True,
            "layers": [
                _layer(f"de{layer}", tables, drawn, f"l{layer}_" if layers > 1 else "")
                for layer in range(layers)
            ],
        },
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3.15.1"}))
        archive.writestr("config.json", json.dumps(config))
    return buffer.getvalue()


def write(directory: Path) -> dict[str, Path]:
    """The four models, in ``directory``."""
    models = {
        **{f"tables{n // 1000}k": (1, n) for n in SIZES},
        **{f"layers{n if n < 1000 else '1k'}": (n, TABLES_A_LAYER) for n in LAYERS},
    }
    paths = {}
    for name, (layers, tables) in models.items():
        path = directory / f"{name}.keras"
        path.write_bytes(model(layers, tables))
        paths[name] = path
    return paths


# (label, model, options): each model checked as the brief's reproduction did (no TPU named: the
# devices unknown, every table's activations 0, so that each group is one stack of thousands)
# and on a v5p-8 (hundreds of stacks).
RUNS = (
    ("tables1k", "tables1k", ()),
    ("tables10k", "tables10k", ()),
    ("tables1k --tpu", "tables1k", ("--tpu", "v5p-8")),
    ("tables10k --tpu", "tables10k", ("--tpu", "v5p-8")),
    ("layers100 --tpu", "layers100", ("--tpu", "v5p-8")),
    ("layers1k --tpu", "layers1k", ("--tpu", "v5p-8")),
)


def run(directory: Path, repeat: int) -> list[tuple[str, float, str]]:
    """Prints the measurements; returns the summary's (label, ratio, target) rows."""
    paths = write(directory)
    best: dict[str, Measured] = {}
    for _ in range(max(repeat, 1)):
        for label, name, options in RUNS:
            measured = command(["check", *OPTIONS, *options, str(paths[name])])
            if label not in best or measured.seconds < best[label].seconds:
                best[label] = measured
    print(f"\nKeras-RS models (`tpuemb check {' '.join(OPTIONS)}`, best of {repeat})")
    for label, measured in best.items():
        peak = measured.peak_bytes / 1e6
        print(f"  {label:<20} {measured.seconds:7.2f} s   peak {peak:6.0f} MB")

    def ratio(large: str, small: str) -> float:
        return best[large].seconds / best[small].seconds

    return [
        ("Keras, one layer: 10k tables / 1k", ratio("tables10k", "tables1k"), "<= 11"),
        (
            "Keras, one layer, --tpu: 10k tables / 1k",
            ratio("tables10k --tpu", "tables1k --tpu"),
            "<= 11",
        ),
        (
            "Keras, 1,000 layers / 100 (10 tables each)",
            ratio("layers1k --tpu", "layers100 --tpu"),
            "<= 11",
        ),
    ]


def main() -> int:
    return bench_main(__doc__.splitlines()[0], write, run, 3)


if __name__ == "__main__":
    raise SystemExit(main())
