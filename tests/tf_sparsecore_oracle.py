"""Run by tests/test_tf_sparsecore.py under TensorFlow's Python, in a process with a fixed
PYTHONHASHSEED: builds each spec of stdin (a JSON list) with TensorFlow's own classes, runs
TensorFlow's own ``_stack_tables_with_same_table_dim_and_optimizer`` and prints, as JSON, this
process's hash(None) and for each spec the stacker's ``GetLayouts()`` and the layouts TensorFlow
saves in checkpoints (``TPUEmbeddingV2._track_restore_info_for_cpu``), as bytes (hex) and as text.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from google.protobuf import text_format
from tensorflow.core.tpu.kernels import sparse_core_layout_pb2
from tensorflow.python.tpu import tpu_embedding_base, tpu_embedding_v3
from tensorflow.python.tpu import tpu_embedding_v2_utils as u
from tensorflow.python.util import nest

CLASSES = {
    "sgd": u.SGD,
    "adagrad": u.Adagrad,
    "adagrad_momentum": u.AdagradMomentum,
    "adam": u.Adam,
    "ftrl": u.FTRL,
}
TOP_LEVEL = ("use_gradient_accumulation", "clip_weight_min", "clip_weight_max")


def optimizer(spec: dict[str, Any]) -> Any:
    (algorithm,) = [name for name in CLASSES if name in spec]
    arguments = dict(spec[algorithm])
    if "constant" in spec.get("learning_rate", {}):
        arguments["learning_rate"] = spec["learning_rate"]["constant"]
    for name in (*TOP_LEVEL, "low_dimensional_packing_status"):
        if name in spec:
            arguments[name] = spec[name]
    clip = spec.get("clipvalue")
    if clip is not None:
        if "scalar" in clip:
            arguments["clipvalue"] = clip["scalar"]
        else:
            arguments["clipvalue"] = (clip["range"].get("min"), clip["range"].get("max"))
    return CLASSES[algorithm](**arguments)


class Recorder:
    """TensorFlow's stacker, keeping what GetLayouts returned."""

    last: Any = None

    def __init__(self, **arguments: Any) -> None:
        self._stacker = REAL(**arguments)

    def AddTable(self, **arguments: Any) -> None:
        self._stacker.AddTable(**arguments)

    def GetLayouts(self) -> Any:
        Recorder.last = self._stacker.GetLayouts()
        return Recorder.last


REAL = tpu_embedding_v3._pywrap_sparse_core_layout.SparseCoreLayoutStacker
tpu_embedding_v3._pywrap_sparse_core_layout.SparseCoreLayoutStacker = Recorder


def run(spec: dict[str, Any]) -> dict[str, str]:
    tables = []
    for table in spec["tables"]:
        quantization = table.get("quantization")
        tables.append(
            u.TableConfig(
                vocabulary_size=table["vocabulary_size"],
                dim=table["dim"],
                name=table.get("name") or None,
                optimizer=optimizer(table["optimizer"]) if "optimizer" in table else None,
                quantization_config=u.QuantizationConfig(**quantization) if quantization else None,
            )
        )
    by_name = {table["name"]: i for i, table in enumerate(spec["tables"]) if table.get("name")}
    features = []
    for feature in spec["features"]:
        reference = feature["table"]
        index = int(reference[1:]) if reference.startswith("#") else by_name[reference]
        features.append(
            u.FeatureConfig(
                table=tables[index],
                output_shape=feature["output_shape"],
                name=feature.get("name"),
            )
        )
    feature_config: Any = features
    if any("key" in feature for feature in spec["features"]):
        feature_config = {f["key"]: c for f, c in zip(spec["features"], features, strict=True)}
    base = tpu_embedding_base.TPUEmbeddingBase(
        feature_config, optimizer(spec["optimizer"]) if "optimizer" in spec else None
    )
    topology = spec["topology"]
    partitions = (
        topology["num_hosts"]
        * topology["cores_per_host"]
        // topology.get("num_cores_per_replica", 1)
    )
    config = tpu_embedding_v3.SparseCoreEmbeddingConfig(
        disable_table_stacking=spec["sparse_core"].get("disable_table_stacking", False)
    )
    stacking = tpu_embedding_v3._stack_tables_with_same_table_dim_and_optimizer(
        base._table_config,
        nest.flatten_with_joined_string_paths(feature_config),
        partitions,
        # What TPUEmbeddingV2 reads from the TPU (num_embedding_devices_per_chip).
        topology.get("sparse_cores_per_chip") or {"v5p": 4, "tpu7x": 4}[topology["accelerator"]],
        config,
    )
    stacker = Recorder.last
    saved = sparse_core_layout_pb2.SparseCoreTableLayouts()
    saved.tables.extend(stacking.table_to_layout.values())
    return {
        "stacker": stacker.SerializeToString(deterministic=True).hex(),
        "stacker_text": text_format.MessageToString(stacker),
        "checkpoint": saved.SerializeToString().hex(),
        "checkpoint_text": text_format.MessageToString(saved),
    }


if __name__ == "__main__":
    specs = json.load(sys.stdin)
    print(json.dumps({"none_hash": hash(None), "results": [run(spec) for spec in specs]}))
