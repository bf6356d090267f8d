"""Builds what TensorFlow 2.21 leaves in an ML repository, for tests/test_built_tree.py: a
SavedModel, a training checkpoint, a frozen GraphDef and a TFRecord file of tf.train.Examples,
all of a tiny ranking model (a 16 x 4 embedding table and a dense layer; no TPU ops). None of
them is a TPU embedding document; tpuemb must skip or pass each. Run with TensorFlow installed
(`make test-tf` makes build/venv-tf):

    build/venv-tf/bin/python tests/data/tf-made/make_repo_artifacts.py

Writes, under tests/data/tf-made/ranker/:
    saved_model/{saved_model.pb, fingerprint.pb, variables/variables.index,
                 variables/variables.data-00000-of-00001}   (tf.saved_model.save of a tf.Module:
                                                             no keras_metadata.pb, which only
                                                             Keras 2 wrote)
    ckpt/{checkpoint, ckpt-1.index, ckpt-1.data-00000-of-00001}   (tf.train.Checkpoint.save)
    frozen_graph.pb     (the serving function, variables folded into Const nodes)
    train-00000-of-00001.tfrecord   (four tf.train.Examples)

Running it again writes the same model, not always the same bytes: TensorFlow numbers some node
names (`embedding_lookup/189`) and its fingerprint hashes them.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

OUT = Path(__file__).parent / "ranker"
VOCABULARY, DIMENSION = 16, 4


class Ranker(tf.Module):  # type: ignore[misc]  # TensorFlow ships no type information
    """Scores a batch of item ids: mean of their embeddings, then a dense layer."""

    def __init__(self) -> None:
        super().__init__(name="ranker")
        init = tf.random.stateless_uniform
        self.item_embedding = tf.Variable(
            init([VOCABULARY, DIMENSION], seed=[1, 2]), name="item_embedding"
        )
        self.dense_kernel = tf.Variable(init([DIMENSION, 1], seed=[3, 4]), name="dense_kernel")
        self.dense_bias = tf.Variable(tf.zeros([1]), name="dense_bias")

    @tf.function(  # type: ignore[untyped-decorator]
        input_signature=[tf.TensorSpec([None, None], tf.int64, name="item_ids")]
    )
    def serve(self, item_ids: Any) -> dict[str, Any]:
        vectors = tf.nn.embedding_lookup(self.item_embedding, item_ids)
        pooled = tf.reduce_mean(vectors, axis=1)
        return {"score": tf.matmul(pooled, self.dense_kernel) + self.dense_bias}


def _example(item_ids: list[int], label: float) -> bytes:
    feature = {
        "item_ids": tf.train.Feature(int64_list=tf.train.Int64List(value=item_ids)),
        "label": tf.train.Feature(float_list=tf.train.FloatList(value=[label])),
    }
    example = tf.train.Example(features=tf.train.Features(feature=feature))
    return bytes(example.SerializeToString())


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    model = Ranker()
    tf.saved_model.save(
        model, str(OUT / "saved_model"), signatures={"serving_default": model.serve}
    )
    checkpoint = tf.train.Checkpoint(model=model, step=tf.Variable(1, dtype=tf.int64))
    checkpoint.save(str(OUT / "ckpt" / "ckpt"))
    frozen = convert_variables_to_constants_v2(model.serve.get_concrete_function())
    (OUT / "frozen_graph.pb").write_bytes(frozen.graph.as_graph_def().SerializeToString())
    with tf.io.TFRecordWriter(str(OUT / "train-00000-of-00001.tfrecord")) as writer:
        for ids, label in (([1, 4, 9], 1.0), ([2, 3, 3], 0.0), ([15, 0, 7], 1.0), ([5, 6, 8], 0.0)):
            writer.write(_example(ids, label))


if __name__ == "__main__":
    main()
