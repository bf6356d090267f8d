"""The SparseCore memory oracle: for every spec, the variables TensorFlow 2.21's ``TPUEmbeddingV2``
creates (each stacked table's parameters and slot variables, their shapes, dtypes, bytes and
shards over the devices) are the ones ``spec.sparsecore_memory`` counts, and ``tpuemb explain
--memory`` reports their sum. Needs TensorFlow (`make test-tf`); skipped without it.

The specs are the layout oracle's (tests/sparsecore_cases.py) and held-out ones generated here
with another generator and seeds: the five optimizers with a SparseCore update, vocabularies from
1 row to 300 million, widths 1-512, stacking on and off, 1-8 SparseCores per chip, 1-64 replicas
and 1 or 2 cores a replica.

TPUEmbeddingV2 is built as tests/test_tf_sparsecore_rules.py builds it: on CPU, under a stand-in
for its TPUStrategy that gives it the replicas, the SparseCores per chip and the devices
(``extended._tpu_devices``, a replicas x cores-per-replica array). Its ``build()`` runs
unchanged -- stacking, ``_create_variables``, the optimizer's ``_create_slots`` and TensorFlow's
sharded variable creator, which splits every variable over the devices -- and each device shard
it asks for is created as an ``UninitializedVariable`` of the shape and dtype it asks for, so that
a 300-million-row table costs no memory here (the initial values are never computed).
"""

from __future__ import annotations

import json
import random
import types
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from click.testing import CliRunner
from google.protobuf import json_format

from tpuemb_cli.cli import main
from tpuemb_cli.model.optimizers import FLOAT_BYTES
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.spec.sparsecore import plan
from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory, model

from .sparsecore_cases import cases

tf = pytest.importorskip("tensorflow")
np = pytest.importorskip("numpy")

from tensorflow.python.distribute import tpu_strategy  # noqa: E402
from tensorflow.python.ops import resource_variable_ops, variable_scope  # noqa: E402
from tensorflow.python.tpu import tpu_embedding_v3 as v3  # noqa: E402

E = tf.tpu.experimental.embedding
CLASSES = {
    "sgd": E.SGD,
    "adagrad": E.Adagrad,
    "adagrad_momentum": E.AdagradMomentum,
    "adam": E.Adam,
    "ftrl": E.FTRL,
}
TOP_LEVEL = ("use_gradient_accumulation", "clip_weight_min", "clip_weight_max")
Spec = dict[str, Any]


class _StandIn(tpu_strategy.TPUStrategyV2):  # type: ignore[misc]
    """What TPUEmbeddingV2 reads from its TPUStrategy, and nothing else."""

    def __init__(self, replicas: int, cores_per_replica: int, sparse_cores: int) -> None:
        feature = types.SimpleNamespace(num_embedding_devices_per_chip=sparse_cores)
        devices = np.array([["/device:CPU:0"] * cores_per_replica] * replicas, dtype=object)
        self._replicas = replicas
        self._stand_in = types.SimpleNamespace(tpu_hardware_feature=feature, _tpu_devices=devices)

    @property
    def num_replicas_in_sync(self) -> int:
        return self._replicas

    @property
    def extended(self) -> Any:
        return self._stand_in


def _optimizer(spec: Spec) -> Any:
    (algorithm,) = [name for name in CLASSES if name in spec]
    arguments = dict(spec[algorithm])
    if "constant" in spec.get("learning_rate", {}):
        arguments["learning_rate"] = spec["learning_rate"]["constant"]
    for name in (*TOP_LEVEL, "low_dimensional_packing_status"):
        if name in spec:
            arguments[name] = spec[name]
    clip = spec.get("clipvalue")
    if clip is not None:
        arguments["clipvalue"] = (
            clip["scalar"]
            if "scalar" in clip
            else (clip["range"].get("min"), clip["range"].get("max"))
        )
    return CLASSES[algorithm](**arguments)


def _features(spec: Spec) -> Any:
    tables = [
        E.TableConfig(
            vocabulary_size=table["vocabulary_size"],
            dim=table["dim"],
            name=table.get("name") or None,
            optimizer=_optimizer(table["optimizer"]) if "optimizer" in table else None,
            quantization_config=E.QuantizationConfig(**table["quantization"])
            if "quantization" in table
            else None,
        )
        for table in spec["tables"]
    ]
    by_name = {table["name"]: i for i, table in enumerate(spec["tables"]) if table.get("name")}
    features = []
    for feature in spec["features"]:
        reference = feature["table"]
        index = int(reference[1:]) if reference.startswith("#") else by_name[reference]
        features.append(
            E.FeatureConfig(
                table=tables[index], output_shape=feature["output_shape"], name=feature.get("name")
            )
        )
    if any("key" in feature for feature in spec["features"]):
        return {f["key"]: c for f, c in zip(spec["features"], features, strict=True)}
    return features


def tensorflow_variables(spec: Spec) -> dict[str, dict[str, Any]]:
    """Every variable TPUEmbeddingV2 creates for ``spec``: by stacked table, by slot
    ("parameters" and the optimizer's), the global shape, the device shards' shapes and the
    bytes of a value."""
    topology = spec["topology"]
    cores = topology["num_hosts"] * topology["cores_per_host"]
    per_replica = topology.get("num_cores_per_replica", 1)
    # What TPUEmbeddingV2 reads from the TPU (num_embedding_devices_per_chip).
    sparse_cores = topology.get("sparse_cores_per_chip") or {"v5p": 4}[topology["accelerator"]]
    strategy = _StandIn(cores // per_replica, per_replica, sparse_cores)

    def uninitialized(next_creator: Any, **kwargs: Any) -> Any:
        del next_creator  # nothing is allocated: only the shape TensorFlow asks for matters
        return resource_variable_ops.UninitializedVariable(
            shape=kwargs["shape"], dtype=kwargs["dtype"], name=kwargs["name"]
        )

    config = E.SparseCoreEmbeddingConfig(
        disable_table_stacking=spec["sparse_core"].get("disable_table_stacking", False)
    )
    global_optimizer = _optimizer(spec["optimizer"]) if "optimizer" in spec else None
    with mock.patch.object(v3.distribute_lib, "get_strategy", return_value=strategy):
        embedding = v3.TPUEmbeddingV2(
            _features(spec), global_optimizer, sparse_core_embedding_config=config
        )
    with variable_scope.variable_creator_scope(uninitialized):
        embedding.build()
    return {
        stack: {
            slot: {
                "shape": tuple(variable.shape.as_list()),
                "shards": [tuple(shard.shape.as_list()) for shard in variable.values],
                "value_bytes": variable.dtype.size,
            }
            for slot, variable in slots.items()
        }
        for stack, slots in embedding.variables.items()
    }


def tpuemb_memory(spec: Spec) -> SparseCoreMemory:
    message = json_format.ParseDict(spec, EmbeddingSpec())
    return model(message, plan(message))


def _held_out(index: int) -> Spec:
    """A spec from a generator and seeds the layout oracle does not use."""
    rng = random.Random(7_000_003 + index)
    algorithms = list(CLASSES)
    sizes = [1, 2, 9, 127, 640, 4_097, 100_003, 2_500_000, 40_000_000, 300_000_001]
    tables = []
    for t in range(rng.randint(1, 9)):
        table: Spec = {
            "name": f"h{rng.randint(0, 999):03d}_{t}",
            "vocabulary_size": rng.choice(sizes),
            "dim": rng.choice([1, 2, 8, 15, 24, 33, 64, 96, 200, 512]),
        }
        if rng.random() < 0.6:
            table["optimizer"] = {rng.choice(algorithms): {}}
        tables.append(table)
    features = [
        {"name": f"f{f}", "table": table["name"], "output_shape": [rng.choice([8, 32, 96])]}
        for f, table in enumerate(tables)
    ]
    per_replica = rng.choice([1, 1, 1, 2])
    spec: Spec = {
        "optimizer": {rng.choice(algorithms): {}, "learning_rate": {"constant": 0.01}},
        "tables": tables,
        "features": features,
        "topology": {
            "num_hosts": rng.choice([1, 2, 4, 16]),
            "cores_per_host": rng.choice([2, 4]),
            "num_cores_per_replica": per_replica,
            "sparse_cores_per_chip": rng.choice([1, 2, 4, 8]),
        },
        "sparse_core": {"disable_table_stacking": rng.random() < 0.3},
    }
    return spec


SPECS: dict[str, Spec] = {case.name: case.spec for case in cases()} | {
    f"held_out_{index:02d}": _held_out(index) for index in range(40)
}
# Every optimizer, stacking on and off, one SparseCore per chip and eight: named, so that a
# failure says which.
for algorithm in CLASSES:
    for stacking in (True, False):
        for sparse_cores in (1, 8):
            SPECS[f"{algorithm}_{'stacked' if stacking else 'unstacked'}_{sparse_cores}sc"] = {
                "optimizer": {algorithm: {}},
                "tables": [
                    {"name": "a", "vocabulary_size": 1_000, "dim": 20},
                    {"name": "b", "vocabulary_size": 33_333, "dim": 17},
                    {"name": "c", "vocabulary_size": 5, "dim": 300},
                ],
                "features": [{"table": name, "output_shape": [64]} for name in ("a", "b", "c")],
                "topology": {
                    "num_hosts": 2,
                    "cores_per_host": 4,
                    "sparse_cores_per_chip": sparse_cores,
                },
                "sparse_core": {"disable_table_stacking": not stacking},
            }


def test_the_specs_cover_the_dimensions() -> None:
    held_out = [spec for name, spec in SPECS.items() if name.startswith("held_out")]
    assert len(held_out) == 40
    assert {spec["topology"]["sparse_cores_per_chip"] for spec in held_out} == {1, 2, 4, 8}
    assert {spec["topology"]["num_cores_per_replica"] for spec in held_out} == {1, 2}
    assert {spec["sparse_core"]["disable_table_stacking"] for spec in held_out} == {True, False}
    used = {
        name
        for spec in held_out
        for holder in [spec["optimizer"], *(t.get("optimizer", {}) for t in spec["tables"])]
        for name in holder
        if name in CLASSES
    }
    assert used == set(CLASSES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_variable_tensorflow_creates_is_counted(name: str) -> None:
    spec = SPECS[name]
    theirs = tensorflow_variables(spec)
    ours = tpuemb_memory(spec)
    topology = spec["topology"]
    devices = topology["num_hosts"] * topology["cores_per_host"]
    cores_per_replica = topology.get("num_cores_per_replica", 1)
    # The same variables: one set per stack, the same slots.
    assert {stack.name: set(stack.arrays) for stack in ours.stacks} == {
        stack: set(slots) for stack, slots in theirs.items()
    }
    for stack in ours.stacks:
        for array in stack.arrays:
            variable = theirs[stack.name][array]
            assert variable["shape"] == (stack.rows, stack.width)
            assert variable["value_bytes"] == FLOAT_BYTES
            assert stack.rows * stack.width * variable["value_bytes"] == stack.array_bytes
            # Split evenly over every device; a replica's devices hold a chip's share.
            assert variable["shards"] == [(stack.rows // devices, stack.width)] * devices
            replica_rows = stack.rows // devices * cores_per_replica
            assert replica_rows == stack.rows_per_sparse_core * ours.sparse_cores_per_chip
    total = sum(
        int(np.prod(variable["shape"])) * variable["value_bytes"]
        for slots in theirs.values()
        for variable in slots.values()
    )
    assert total == ours.total
    # Each replica (a chip) holds 1/replicas of every variable.
    assert ours.per_chip * ours.num_partitions == total


@pytest.mark.slow
@pytest.mark.parametrize("name", ["dlrm_26_tables", "held_out_03", "adam_stacked_8sc"])
def test_explain_memory_reports_tensorflows_bytes(name: str, tmp_path: Path) -> None:
    spec = SPECS[name]
    theirs = tensorflow_variables(spec)
    total = sum(
        int(np.prod(variable["shape"])) * variable["value_bytes"]
        for slots in theirs.values()
        for variable in slots.values()
    )
    replicas = (
        spec["topology"]["num_hosts"]
        * spec["topology"]["cores_per_host"]
        // spec["topology"].get("num_cores_per_replica", 1)
    )
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    result = CliRunner().invoke(main, ["explain", "--memory", "--format", "json", str(path)])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["engine"] == "sparsecore"
    assert document["total_bytes"] == total
    assert document["per_chip_bytes"] == total // replicas
