"""Run by tests/test_jax_memory_oracle.py in a subprocess (``python -m tests.jax_variables_probe
DEVICES SEED...``): JAX's CPU device count is fixed when its backend starts, so each device count
gets its own process. For each seed, jax-tpu-embedding stacks generated tables over DEVICES CPU
devices, writes its EmbeddingSpecProto, and creates the stacked variables
(``init_embedding_variables``); prints, per seed, the proto (hex) and every stack's variable
shapes and dtypes, as JSON lines."""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any


def _case(seed: int, devices: int) -> tuple[list[Any], list[Any], int]:
    from jax_tpu_embedding.sparsecore.lib.nn import embedding as jte
    from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec

    def zeros(key: Any, shape: Any, dtype: Any = None) -> Any:
        import jax.numpy as jnp

        return jnp.zeros(shape)

    rng = random.Random(seed)
    cores = (2, 4)[seed % 2]
    optimizers = [
        getattr(embedding_spec, name)(learning_rate=0.1)
        for name in sorted(dir(embedding_spec))
        if name.endswith("OptimizerSpec") and name not in ("OptimizerSpec", "CustomOptimizerSpec")
    ]
    shared = rng.choice(optimizers)
    tables, features = [], []
    for index in range(rng.randint(1, 8)):
        table = embedding_spec.TableSpec(
            name=f"t{index}",
            vocabulary_size=rng.choice([1, 7, 100, rng.randint(1, 20_000)]),
            embedding_dim=rng.choice([1, 8, 12, rng.randint(1, 300)]),
            initializer=zeros,
            optimizer=shared if rng.random() < 0.7 else rng.choice(optimizers),
            combiner="sum",
            max_ids_per_partition=rng.choice([64, 256, 1000]),
            max_unique_ids_per_partition=32,
        )
        tables.append(table)
        batch = devices * cores * rng.randint(1, 4)
        features.append(
            embedding_spec.FeatureSpec(
                name=f"f{index}",
                table_spec=table,
                input_shape=[batch, 1],
                output_shape=[batch, table.embedding_dim],
            )
        )
    if seed % 3:
        jte.auto_stack_tables(features, devices, cores)
    jte.prepare_feature_specs_for_training(features, devices, cores)
    return tables, features, cores


def main(devices: int, seeds: list[int]) -> None:
    import jax
    import numpy as np
    from jax_tpu_embedding.sparsecore.lib.nn import embedding as jte

    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("x",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x", None))
    for seed in seeds:
        tables, features, cores = _case(seed, devices)
        proto = jte.create_proto_from_feature_specs(features, devices, cores)
        made = jte.init_embedding_variables(jax.random.key(seed), tables, sharding, cores)
        variables = {
            name: [[list(v.table.shape), str(v.table.dtype)]]
            + [[list(slot.shape), str(slot.dtype)] for slot in v.slot]
            for name, v in made.items()
        }
        line = {"seed": seed, "cores": cores, "proto": proto.SerializeToString().hex()}
        print(json.dumps(line | {"variables": variables}))


if __name__ == "__main__":
    count = int(sys.argv[1])
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={count}"
    os.environ["JAX_PLATFORMS"] = "cpu"
    main(count, [int(seed) for seed in sys.argv[2:]])
