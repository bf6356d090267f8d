"""Writes this folder's stacked layouts with jax-tpu-embedding itself, on CPU, and lints its
feature specs with tpuemb (``make test-jax``'s venv has both: ``build/venv-jax/bin/python
examples/jax/make_stacked.py``).

A recommender's embedding tables, stacked by the library for a training job:

- ``recommender.stacked.pbtxt``: 4 devices of 2 SparseCores (8 in all); ``user`` and ``item``
  stacked together, ``country`` alone.
- ``changes/recommender.next.stacked.pbtxt``: the next version of the job: 8 devices (16
  SparseCores), ``country`` 8 -> 12 wide, and a new table ``region``.

``tpuemb diff examples/jax/recommender.stacked.pbtxt
examples/jax/changes/recommender.next.stacked.pbtxt`` says what the change does to a checkpoint of
the first job; ``tests/test_jax_diff_oracle.py`` checks that the files are what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from google.protobuf import text_format
from jax_tpu_embedding.sparsecore.lib.nn import embedding, embedding_spec, table_stacking

from tpuemb_cli.jax import lint_jax

HERE = Path(__file__).resolve().parent
BATCH = 1024  # global: every device's samples
CORES_PER_DEVICE = 2


def _zeros(key: Any, shape: Any, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return jnp.zeros(shape)


def feature_specs(next_version: bool) -> list[Any]:
    """The model's features, each with its table (the version before the change, or after)."""
    adagrad = embedding_spec.AdagradOptimizerSpec(learning_rate=0.05)
    tables = [
        # Rows a multiple of 8 x 16: the same padded size on 8 SparseCores and on 16.
        ("user", 1_048_576, 32, adagrad),
        ("item", 524_288, 32, adagrad),
        ("country", 250, 12 if next_version else 8, embedding_spec.SGDOptimizerSpec(0.1)),
    ]
    if next_version:
        tables.append(("region", 1_000, 16, embedding_spec.SGDOptimizerSpec(0.1)))
    features = []
    for name, vocabulary, dim, optimizer in tables:
        table = embedding_spec.TableSpec(
            name=name,
            vocabulary_size=vocabulary,
            embedding_dim=dim,
            initializer=_zeros,
            optimizer=optimizer,
            combiner="sum",
        )
        features.append(
            embedding_spec.FeatureSpec(
                name=f"{name}_id",
                table_spec=table,
                input_shape=(BATCH, 1),
                output_shape=(BATCH, dim),
            )
        )
    return features


def stacked(next_version: bool) -> Any:
    """The EmbeddingSpecProto the library makes for the version's training job."""
    devices = 8 if next_version else 4
    features = feature_specs(next_version)
    table_stacking.stack_tables(features, ["user", "item"], devices, CORES_PER_DEVICE)
    embedding.prepare_feature_specs_for_training(features, devices, CORES_PER_DEVICE)
    return embedding.create_proto_from_feature_specs(features, devices, CORES_PER_DEVICE)


TARGETS = {
    False: HERE / "recommender.stacked.pbtxt",
    True: HERE / "changes" / "recommender.next.stacked.pbtxt",
}
HEADER = (
    "# proto-message: third_party.py.jax_tpu_embedding.sparsecore_lib_proto.EmbeddingSpecProto\n"
    "# Written by jax-tpu-embedding {version} on CPU: examples/jax/make_stacked.py\n"
)


def text_of(next_version: bool) -> str:
    from importlib.metadata import version

    body = text_format.MessageToString(stacked(next_version))
    return HEADER.format(version=version("jax-tpu-embedding")) + body


def main() -> int:
    for next_version, target in TARGETS.items():
        findings = lint_jax(
            feature_specs(next_version),
            global_device_count=8 if next_version else 4,
            num_sc_per_device=CORES_PER_DEVICE,
            stacks={"user_item": ["user", "item"]},
        )
        for finding in findings:
            print(f"{target.name}: {finding.rule} {finding.message}")
        target.parent.mkdir(exist_ok=True)
        target.write_text(text_of(next_version))
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
