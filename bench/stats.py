"""`tpuemb stats` on 10 million ids against jax-tpu-embedding's own preprocessing of the same ids
on CPU, side by side (`make bench-stats`; it needs the library: build/venv-jax, which
`make test-jax` makes).

    build/venv-jax/bin/python -m bench.stats              # 5 pairs, one summary line
    build/venv-jax/bin/python -m bench.stats --ids 1000000 --pairs 3

The setup: 8 devices of 4 SparseCores, all local (one process), 6 tables auto-stacked (as the
library groups them), 8 features (two share a table), 10 million ids in dense (samples, ids)
int32 arrays, half uniform and half Zipf-skewed. The library's side is
``preprocess_sparse_dense_matmul_input`` on those arrays (allow_id_dropping, its stats and its
CSR buffers). Ours is the whole command in-process -- the spec read and compiled, the .npy
files read, the statistics computed and printed as JSON -- and, beside it, the counting alone
(``measure`` on the arrays in memory). The two run in pairs, alternating, and the result is the
median of the per-pair ratios (bench/startup.py says why); both sides use every CPU. The target
is 3x.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET = 3.0
DEVICES, PER_DEVICE = 8, 4


def _initializer(key: Any, shape: Any, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return jnp.zeros(shape)


def setup(total_ids: int, folder: Path) -> tuple[list[Any], list[Any], Path]:
    """The library's prepared FeatureSpecs, their ids (dense int32), and its proto's file."""
    import numpy as np
    from google.protobuf import text_format
    from jax_tpu_embedding.sparsecore.lib.nn import embedding, embedding_spec

    rng = np.random.default_rng(0)
    optimizer = embedding_spec.SGDOptimizerSpec(learning_rate=0.1)
    vocabularies = [1_000_000, 200_000, 50_000, 10_000, 2_000_000, 100]
    tables = [
        embedding_spec.TableSpec(
            name=f"t{i}",
            vocabulary_size=vocab,
            embedding_dim=16,
            initializer=_initializer,
            optimizer=optimizer,
            combiner="sum",
            max_ids_per_partition=1024,
            max_unique_ids_per_partition=1024,
        )
        for i, vocab in enumerate(vocabularies)
    ]
    uses = [0, 1, 2, 3, 4, 5, 0, 4]  # two tables shared by two features
    width = 32
    rows = total_ids // (len(uses) * width) // (DEVICES * PER_DEVICE) * DEVICES * PER_DEVICE
    features, arrays = [], []
    for index, table in enumerate(uses):
        spec = tables[table]
        features.append(
            embedding_spec.FeatureSpec(
                name=f"f{index}",
                table_spec=spec,
                input_shape=[rows, width],
                output_shape=[rows, spec.embedding_dim],
            )
        )
        if index % 2:
            values = rng.integers(0, spec.vocabulary_size, size=(rows, width))
        else:
            values = np.minimum(rng.zipf(1.2, size=(rows, width)) - 1, spec.vocabulary_size - 1)
        arrays.append(values.astype(np.int32))
    embedding.auto_stack_tables(features, DEVICES, PER_DEVICE)
    embedding.prepare_feature_specs_for_training(features, DEVICES, PER_DEVICE)
    proto = embedding.create_proto_from_feature_specs(features, DEVICES, PER_DEVICE)
    path = folder / "model.pbtxt"
    path.write_text(
        "# proto-message: third_party.py.jax_tpu_embedding.sparsecore_lib_proto."
        "EmbeddingSpecProto\n" + text_format.MessageToString(proto)
    )
    (folder / "ids").mkdir()
    for feature, array in zip(features, arrays, strict=True):
        np.save(folder / "ids" / f"{feature.name}.npy", array)
    return features, arrays, path


def library(features: list[Any], arrays: list[Any]) -> Any:
    from jax_tpu_embedding.sparsecore.lib.nn import embedding

    _, stats = embedding.preprocess_sparse_dense_matmul_input(
        arrays,
        None,
        features,
        DEVICES,
        DEVICES,
        num_sc_per_device=PER_DEVICE,
        allow_id_dropping=True,
    )
    return stats


def command(folder: Path, spec: Path) -> dict[str, Any]:
    from click.testing import CliRunner

    from tpuemb_cli.cli import main

    result = CliRunner().invoke(
        main,
        ["stats", str(folder / "ids"), str(spec), "--format", "json"]
        + ["--sparsecores-per-device", str(PER_DEVICE)],
    )
    if result.exit_code:
        raise SystemExit(f"tpuemb stats failed: {result.output}")
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def counting(spec: Path, arrays: list[Any], features: list[Any]) -> Any:
    """``measure`` alone, on the arrays in memory."""
    import numpy as np

    from tpuemb_cli.frontends.jax.load.ids import FeatureIds
    from tpuemb_cli.frontends.jax.spec.stats.compute import measure
    from tpuemb_cli.frontends.jax.spec.stats.plan import Devices, stacks_of
    from tpuemb_cli.load import load_bytes

    document = load_bytes(spec.read_bytes(), str(spec), None, None)
    stacks, num_scs = stacks_of(document.message)
    ids = {
        f.name: FeatureIds(
            a.reshape(-1).astype(np.int64),
            np.arange(a.shape[0] + 1, dtype=np.int64) * a.shape[1],
        )
        for f, a in zip(features, arrays, strict=True)
    }
    return measure(stacks, ids, Devices(num_scs // PER_DEVICE, DEVICES, PER_DEVICE))


def _timed(function: Any, *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", type=int, default=10_000_000)
    parser.add_argument("--pairs", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tpuemb-bench-stats-") as scratch:
        folder = Path(scratch)
        features, arrays, spec = setup(options.ids, folder)
        total = sum(int(a.size) for a in arrays)
        library(features, arrays)  # warm-up: the library's thread pool, our imports
        command(folder, spec)
        ratios, counted, theirs_s, ours_s, count_s = [], [], [], [], []
        for _ in range(options.pairs):
            ours, document = _timed(command, folder, spec)
            theirs, stats = _timed(library, features, arrays)
            alone, _ = _timed(counting, spec, arrays, features)
            for name, stack in document["stacks"].items():
                same = (
                    list(stats.max_ids_per_partition[name]) == stack["max_ids"]
                    and list(stats.required_buffer_size_per_sc[name])
                    == stack["required_buffer_size"]
                )
                if not same or int(stats.id_drop_counters[name]) != stack["id_drop_counters"]:
                    raise SystemExit(f"stack {name}: tpuemb stats differs from the library")
            ratios.append(ours / theirs)
            counted.append(alone / theirs)
            theirs_s.append(theirs)
            ours_s.append(ours)
            count_s.append(alone)
    ratio = statistics.median(ratios)
    print(
        f"tpuemb stats on {total:,} ids: {statistics.median(ours_s):.2f} s (the counting alone "
        f"{statistics.median(count_s):.2f} s), jax-tpu-embedding's preprocessing "
        f"{statistics.median(theirs_s):.2f} s: {ratio:.2f}x (the counting alone "
        f"{statistics.median(counted):.2f}x; target <= {TARGET:g}x; median of {options.pairs} "
        "pairs)"
    )
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
