"""Small Keras model configurations (config.json) written by hand, and `tpuemb check` on them,
for tests that run without Keras."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

ABSENT = object()


def optimizer(class_name: str, **config: Any) -> dict[str, Any]:
    return {"module": "keras.optimizers", "class_name": class_name, "config": config}


def table(name: str, rows: int = 64, dim: int = 8, **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "vocabulary_size": rows,
        "embedding_dim": dim,
        "optimizer": "adagrad",
        "combiner": "mean",
        "placement": "auto",
        "max_ids_per_partition": 256,
        "max_unique_ids_per_partition": 256,
        **fields,
    }


def model_text(
    tables: list[dict[str, Any]], features: dict[str, int], stacking: Any = ABSENT
) -> str:
    """A Functional model's config.json holding one DistributedEmbedding: ``features`` maps
    each feature's name to its table's index; each takes (32, 1) ids and returns the table's
    dimension."""
    config: dict[str, Any] = {
        "name": "embedding",
        "feature_configs": {
            name: {
                "name": name,
                "table": index,
                "input_shape": [32, 1],
                "output_shape": [32, tables[index]["embedding_dim"]],
            }
            for name, index in features.items()
        },
        "tables": tables,
    }
    if stacking is not ABSENT:
        config["table_stacking"] = stacking
    layer = {
        "module": "keras_rs.layers",
        "class_name": "DistributedEmbedding",
        "config": config,
        "registered_name": "keras_rs>DistributedEmbedding",
    }
    return json.dumps(
        {"module": "keras", "class_name": "Functional", "config": {"name": "m", "layers": [layer]}}
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.json"
    path.write_text(text)
    return path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def findings(path: Path, *options: str) -> list[dict[str, Any]]:
    result = invoke("check", "--format", "json", "--tpu", "v5p-8", *options, str(path))
    assert result.exit_code in (0, 1), result.output
    found: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
    return found
