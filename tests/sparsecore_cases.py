"""Generated SparseCore specs for the oracle suite (tests/test_tf_sparsecore.py, which compares
them with TensorFlow's own stacker) and the TensorFlow-free suite (tests/test_sparsecore.py).

Each case is an EmbeddingSpec as a JSON-ready dict (the field names of embedding_spec.proto) and
the PYTHONHASHSEED the TensorFlow process runs with. Every float is a short decimal, so the float32
the spec stores reads back as the float TensorFlow got. The mix: dimensions 1-300, the five
optimizers with differing and with equal settings (equal settings in different objects stack),
quantization, stacking on and off, 1-64 partitions, 1, 2 and 4 SparseCores per chip, vocabularies
that do not divide, sequence features, features sharing a table, keyed (dict) features, unnamed
tables, tables big enough to pass the stacker's 2 GiB variable-shard limit and batches big enough
to pass its 2 MiB activation limit, and a 26-table DLRM.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

Spec = dict[str, Any]


class Case(NamedTuple):
    name: str
    spec: Spec
    seed: int  # the PYTHONHASHSEED of the TensorFlow process


_ALGORITHMS = ("sgd", "adagrad", "adagrad_momentum", "adam", "ftrl")


def _optimizer(rng: random.Random, algorithm: str | None = None) -> Spec:
    algorithm = algorithm or rng.choice(_ALGORITHMS)
    settings: Spec = {}
    if algorithm == "adagrad" and rng.random() < 0.5:
        settings["initial_accumulator_value"] = rng.choice([0.1, 0.2, 0.5])
    elif algorithm == "adagrad_momentum":
        settings["momentum"] = rng.choice([0.0, 0.5, 0.9])
        if rng.random() < 0.3:
            settings["use_nesterov"] = True
        if rng.random() < 0.3:
            settings["exponent"] = 4.0
    elif algorithm == "adam":
        settings["beta_1"] = rng.choice([0.8, 0.9])
        if rng.random() < 0.3:
            settings["lazy_adam"] = False
        if rng.random() < 0.3:
            settings["epsilon"] = 1e-06
    elif algorithm == "ftrl":
        settings["l1_regularization_strength"] = rng.choice([0.0, 0.01])
        if rng.random() < 0.3:
            settings["beta"] = 0.5
    optimizer: Spec = {algorithm: settings}
    if rng.random() < 0.7:
        optimizer["learning_rate"] = {"constant": rng.choice([0.01, 0.05, 0.1, 0.002])}
    roll = rng.random()
    if roll < 0.15:
        optimizer["clipvalue"] = {"scalar": rng.choice([1.0, 3.5])}
    elif roll < 0.25:
        optimizer["clipvalue"] = {"range": {"max": 2.0}}
    if rng.random() < 0.15:
        optimizer["clip_weight_min"] = -1.5
    if rng.random() < 0.1:
        optimizer["low_dimensional_packing_status"] = True
    return optimizer


def _random_case(index: int, rng: random.Random) -> Case:
    n_tables = rng.randint(1, 12)
    shared = [_optimizer(rng) for _ in range(rng.randint(1, 3))]
    tables = []
    for t in range(n_tables):
        table: Spec = {
            "name": f"t{t:02d}_{rng.choice(['user', 'item', 'ctx', 'geo'])}",
            "vocabulary_size": rng.choice([1, 7, 100, 300, 1001, 4097, 65537, 1_000_003]),
            "dim": rng.choice([1, 3, 4, 7, 8, 9, 16, 17, 32, 64, 100, 128, 256, 300]),
        }
        if rng.random() < 0.5:
            # A copy: equal settings in another object, as a script that builds one per table.
            table["optimizer"] = dict(rng.choice(shared))
        if rng.random() < 0.1:
            table["quantization"] = {"num_buckets": 256, "lower": -4.0, "upper": 4.0}
        tables.append(table)
    rng.shuffle(tables)  # the stacker sorts by name: the spec's order must not matter
    batch = rng.choice([8, 16, 64, 128, 1024])
    features = []
    for f in range(rng.randint(n_tables, n_tables + 4)):
        table_name = tables[f % n_tables]["name"] if f < n_tables else rng.choice(tables)["name"]
        shape = [batch] if rng.random() < 0.7 else [batch, rng.choice([2, 5, 20])]
        features.append({"name": f"f{f}", "table": table_name, "output_shape": shape})
    rng.shuffle(features)
    if rng.random() < 0.3:
        for f, feature in enumerate(features):
            feature["key"] = f"k{rng.randint(0, 99):02d}_{f}"
    hosts = rng.choice([1, 1, 2, 4, 8, 16])
    cores = rng.choice([1, 2, 4])
    spec: Spec = {
        "tables": tables,
        "features": features,
        "topology": {
            "num_hosts": hosts,
            "cores_per_host": cores,
            "sparse_cores_per_chip": rng.choice([1, 2, 4]),
        },
        "sparse_core": {"disable_table_stacking": True} if rng.random() < 0.2 else {},
    }
    if len(tables) != sum("optimizer" in table for table in tables):
        spec["optimizer"] = shared[0]
    return Case(f"random_{index:02d}", spec, rng.choice([0, 0, 1, 42, 12345]))


def _dlrm() -> Case:
    # Criteo's 26 categorical features, one table each, one optimizer: one stack of 26 on 32 chips.
    vocabularies = [
        39884406, 39043, 17289, 7420, 20263, 3, 7120, 1543, 63, 38532951, 2953546, 403346, 10,
        2208, 11938, 155, 4, 976, 14, 39979771, 25641295, 39664984, 585935, 12972, 108, 36,
    ]  # fmt: skip
    tables = [
        {"name": f"cat_{i}", "vocabulary_size": size, "dim": 128}
        for i, size in enumerate(vocabularies)
    ]
    features = [{"name": f"cat_{i}", "table": f"cat_{i}", "output_shape": [512]} for i in range(26)]
    spec: Spec = {
        "optimizer": {"adagrad": {}, "learning_rate": {"constant": 0.05}},
        "tables": tables,
        "features": features,
        "topology": {"num_hosts": 8, "cores_per_host": 4, "accelerator": "v5p"},
        "sparse_core": {"max_ids_per_chip_per_sample": 64},
    }
    return Case("dlrm_26_tables", spec, 0)


def _limits() -> list[Case]:
    cases = []
    # Two tables of 2^28 x 128 on one partition: 128 GiB shards each, over the 2 GiB limit, so
    # each is a stack of its own; a small table joins neither.
    big: Spec = {
        "optimizer": {"sgd": {}},
        "tables": [
            {"name": "huge_a", "vocabulary_size": 268435456, "dim": 128},
            {"name": "huge_b", "vocabulary_size": 268435457, "dim": 128},
            {"name": "small", "vocabulary_size": 1000, "dim": 128},
        ],
        "features": [
            {"table": "huge_a", "output_shape": [32]},
            {"table": "huge_b", "output_shape": [32]},
            {"table": "small", "output_shape": [32]},
        ],
        "topology": {"num_hosts": 1, "cores_per_host": 1, "sparse_cores_per_chip": 4},
        "sparse_core": {},
    }
    cases.append(Case("limit_variable_shard", big, 0))
    # The first feature's table alone passes the 2 MiB activation limit (4 x 256 x 8192 / 4
    # bytes), so no other table may join its stack.
    activation: Spec = {
        "optimizer": {"adam": {}},
        "tables": [
            {"name": "wide_first", "vocabulary_size": 5000, "dim": 256},
            {"name": "wide_second", "vocabulary_size": 5000, "dim": 256},
            {"name": "wide_third", "vocabulary_size": 5000, "dim": 250},
        ],
        "features": [
            {"table": "wide_first", "output_shape": [4096, 2]},
            {"table": "wide_second", "output_shape": [4096, 2]},
            {"table": "wide_third", "output_shape": [4096]},
        ],
        "topology": {"num_hosts": 1, "cores_per_host": 4, "sparse_cores_per_chip": 4},
        "sparse_core": {},
    }
    cases.append(Case("limit_activation", activation, 0))
    return cases


def _fixed() -> list[Case]:
    cases = []
    # Unnamed tables (table_<i> by first use) and a table two features share (the first
    # feature's table records one feature only).
    unnamed: Spec = {
        "optimizer": {"ftrl": {"l1_regularization_strength": 0.01}},
        "tables": [
            {"vocabulary_size": 300, "dim": 5},
            {"vocabulary_size": 3000, "dim": 8},
            {"name": "named", "vocabulary_size": 77, "dim": 300},
        ],
        "features": [
            {"table": "#1", "output_shape": [64, 10]},
            {"table": "#1", "output_shape": [64]},
            {"table": "#0", "output_shape": [64]},
            {"table": "named", "output_shape": [64]},
        ],
        "topology": {"num_hosts": 2, "cores_per_host": 4, "sparse_cores_per_chip": 2},
        "sparse_core": {},
    }
    cases.append(Case("unnamed_and_shared", unnamed, 0))
    # 64 partitions (16 hosts x 4 chips), every optimizer once, dims 1-7 (padded to 8) together.
    every: Spec = {
        "tables": [
            {"name": f"{algorithm}_{dim}", "vocabulary_size": 1000 + dim, "dim": dim}
            | {"optimizer": {algorithm: {}}}
            for algorithm in _ALGORITHMS
            for dim in (1, 4, 7, 64)
        ],
        "topology": {"num_hosts": 16, "cores_per_host": 4, "sparse_cores_per_chip": 4},
        "sparse_core": {},
    }
    every["features"] = [
        {"table": table["name"], "output_shape": [16]} for table in every["tables"]
    ]
    cases.append(Case("every_optimizer_64_partitions", every, 7))
    cases.append(Case("every_optimizer_seed_99", every, 99))
    # SPMD: two cores a replica, 4 replicas.
    spmd: Spec = {
        "optimizer": {"sgd": {}, "learning_rate": {"constant": 0.1}},
        "tables": [{"name": "a", "vocabulary_size": 10, "dim": 16}],
        "features": [{"table": "a", "output_shape": [8]}],
        "topology": {
            "num_hosts": 2,
            "cores_per_host": 4,
            "num_cores_per_replica": 2,
            "sparse_cores_per_chip": 4,
        },
        "sparse_core": {"disable_table_stacking": False},
    }
    cases.append(Case("spmd_replicas", spmd, 0))
    return cases


def cases() -> list[Case]:
    rng = random.Random(20251123)
    generated = [_random_case(index, rng) for index in range(30)]
    return generated + _limits() + _fixed() + [_dlrm()]
