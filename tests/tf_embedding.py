"""TensorFlow's mid-level API built from a side of tests/compat_pairs.py, for the oracles that
save and restore checkpoints (tests/test_tf_diff.py, tests/test_tf_checkpoint.py). It imports
TensorFlow: only those modules import it, and they are skipped without TensorFlow."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import pytest

from .compat_pairs import Side

tf = pytest.importorskip("tensorflow")


def optimizer(t: dict[str, Any]) -> Any:
    """The mid-level API's optimizer of a table of compat_pairs."""
    u = tf.tpu.experimental.embedding
    classes = {
        "sgd": u.SGD,
        "adagrad": u.Adagrad,
        "adagrad_momentum": u.AdagradMomentum,
        "adam": u.Adam,
        "ftrl": u.FTRL,
    }
    return classes[t["opt"]](learning_rate=t["lr"], clipvalue=t.get("clip"))


@contextmanager
def sharded(hosts: int) -> Iterator[None]:
    """Variables created inside are split over ``hosts`` CPU devices as TPU training splits them
    (``make_sharded_variable_creator`` in tpu_embedding_v2.py: the tables' 2-D variables; a
    scalar bookkeeping variable is left whole)."""
    from tensorflow.python.tpu import tpu_embedding_v2

    creator = tpu_embedding_v2.make_sharded_variable_creator(["/cpu:0"] * hosts)

    def split(next_creator: Any, **kwargs: Any) -> Any:
        shape = kwargs.get("shape")
        if shape is not None and len(shape) == 2:
            return creator(next_creator, **kwargs)
        return next_creator(**kwargs)

    with tf.variable_creator_scope(split):
        yield


def build(side: Side, hosts: int = 0) -> tuple[Any, dict[str, str]]:
    """The side's TPUEmbeddingForServing, built (its variables split over ``hosts`` if any), and
    the table name -> id of each table."""
    u = tf.tpu.experimental.embedding
    tables = {
        t["id"]: u.TableConfig(
            vocabulary_size=t["vocab"], dim=t["dim"], name=t["name"], optimizer=optimizer(t)
        )
        for t in side.tables
    }
    features = [u.FeatureConfig(table=tables[id], name=name) for name, id in side.features]
    embedding = u.TPUEmbeddingForServing(features, None)
    with sharded(hosts) if hosts else nullcontext():
        embedding.build()
    # TensorFlow named the unnamed tables (table_<i>, by order of first use): ask it.
    return embedding, {config.name: id for id, config in tables.items()}


def raises(assertion: Any) -> bool:
    """Whether a checkpoint status's assertion fails."""
    try:
        assertion()
    except AssertionError:
        return True
    return False
