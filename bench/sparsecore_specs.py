"""Synthetic SparseCore specs and wide configs for the benchmark (bench/sparsecore.py).

``sparsecore_spec(n)``: a ``TPUEmbeddingV2`` spec of ``n`` tables on a v5p-256 slice (128
partitions x 4 SparseCores), one feature of 128 samples per table, four widths and three
optimizers (the spec's Adagrad, and two overrides: an SGD and an Adam), so that the tables fall in
twelve groups whose stacks fill up to TensorFlow's activation limit (2 MiB: 1,023 tables of width
16 a stack) -- about 120 bytes of YAML a table, as a model's spec would be written.

``wide_config(n)``: a TensorCore config of ``n`` tables and ``n`` features (one each), the shape
with which ``explain`` once compared every table with every feature.
"""

from __future__ import annotations

from bench.configs import build
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

_OVERRIDES = (
    "",
    ", optimizer: {sgd: {}, learning_rate: {constant: 0.01}}",
    ", optimizer: {adam: {beta_1: 0.9}, learning_rate: {constant: 0.001}}",
)


def sparsecore_spec(tables: int) -> str:
    """The YAML of an ``tables``-table SparseCore spec (it lints clean but for TE651's note)."""
    lines = [
        "optimizer:",
        "  adagrad: {initial_accumulator_value: 0.01}",
        "  learning_rate: {constant: 0.004}",
        "tables:",
    ]
    lines += [
        f"  - {{name: table_{i}, vocabulary_size: {20000 + 37 * i}, "
        f"dim: {(8, 16, 32, 64)[i % 4]}{_OVERRIDES[i % 7 % 3]}}}"
        for i in range(tables)
    ]
    lines.append("features:")
    lines += [
        f"  - {{name: feature_{i}, table: table_{i}, output_shape: [128]}}" for i in range(tables)
    ]
    lines += [
        "topology: {num_hosts: 32, cores_per_host: 4, per_replica_batch_size: 128, "
        "accelerator: v5p}",
        "sparse_core: {max_ids_per_chip_per_sample: 64}",
    ]
    return "\n".join(lines) + "\n"


def wide_config(tables: int) -> TPUEmbeddingConfiguration:
    """bench.configs' config of ``tables`` tables, with one feature each."""
    config = build(tables)
    features = list(config.feature_descriptor)
    del config.feature_descriptor[:]
    config.feature_descriptor.extend(features[::2])
    return config
