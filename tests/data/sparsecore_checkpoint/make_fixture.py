"""Writes the TPUEmbeddingV2 checkpoint of this folder's `model.spec.yaml` with TensorFlow 2.21
itself: the real `TPUEmbeddingV2`, built on CPU under tests/tf_tpu_standin.py's stand-in
TPUStrategy (2 replicas, 4 SparseCores per chip, as the spec's topology says), each stacked
variable and slot set to values of its own, saved by `tf.train.Checkpoint(embedding=...)`.
Regenerate (README.md) with

    PYTHONPATH=. build/venv-tf/bin/python tests/data/sparsecore_checkpoint/make_fixture.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import tensorflow as tf
import yaml

from tests.test_tf_sparsecore_diff import build
from tests.tf_tpu_standin import tpu_strategy_standin

HERE = Path(__file__).resolve().parent


def main() -> None:
    spec = yaml.safe_load((HERE / "model.spec.yaml").read_text())
    spec["sparse_core"] = {"disable_table_stacking": False}
    generator = np.random.default_rng(39)
    folder = HERE / "ckpt"
    shutil.rmtree(folder, ignore_errors=True)
    with tpu_strategy_standin("V2", 2, 4):
        embedding = build(spec)
        embedding.build()
        for variables in embedding._variables.values():
            for variable in variables.values():
                for shard in variable.values:
                    shard.assign(generator.standard_normal(shard.shape).astype(np.float32))
        tf.train.Checkpoint(embedding=embedding).save(str(folder / "ckpt"))
    for name, shape in tf.train.list_variables(str(folder)):
        print(name, shape)


if __name__ == "__main__":
    main()
