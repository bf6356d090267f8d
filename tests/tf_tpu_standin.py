"""A stand-in TPUStrategy on CPU, under which Keras-RS's TensorFlow `DistributedEmbedding` builds
the real `TPUEmbeddingV2` (embedding feature V2: v5p, v6e) or `TPUEmbedding` (V1: v2-v4), for
`make test-tf` (tests/test_tf_keras_saving_oracle.py).

Nothing of the libraries' own logic is replaced: the strategy is an instance of TensorFlow's
`TPUStrategyV2` class (so every `isinstance` check the layer and TensorFlow make passes) whose
`extended` answers the few questions they ask of the hardware -- its embedding feature, the
SparseCores per chip, the replicas and their devices (all this process's CPU). What only a TPU can
run is stubbed, for V1 only: whether the embedding engine is initialised (no), initialising it,
and copying the tables to and from it (`_load_variables`, `_retrieve_variables`: the values stay
in the host variables, which is where TensorFlow keeps them between those copies).

One more patch works around TensorFlow 2.21 itself under protobuf >= 7.34: its optimizers assign
a Python bool to the enum field `low_dimensional_packing_status`, which that protobuf refuses
(../shared/reference; the V1 path writes that field, V2 does not), so the bool is made the int it
means before the assignment.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any
from unittest import mock

import numpy as np
import tensorflow as tf
from tensorflow.python.distribute import distribute_lib, tpu_strategy
from tensorflow.python.tpu import tpu as tpu_lib
from tensorflow.python.tpu import tpu_embedding_v2, tpu_embedding_v2_utils
from tensorflow.python.tpu.ops import tpu_ops

HOST = "/job:localhost/replica:0/task:0/device:CPU:0"


class _Hardware:
    def __init__(self, feature: str, sparsecores: int) -> None:
        self.embedding_feature = getattr(
            tf.tpu.experimental.HardwareFeature.EmbeddingFeature, feature
        )
        self.num_embedding_devices_per_chip = sparsecores


class _Extended:
    def __init__(self, feature: str, replicas: int, sparsecores: int) -> None:
        self.tpu_hardware_feature = _Hardware(feature, sparsecores)
        self._num_replicas_in_sync = replicas
        # One logical core per replica, all on this host's CPU.
        self._tpu_devices = np.array([[HOST]] * replicas)
        self.worker_devices = tuple(
            f"/job:localhost/replica:0/task:0/device:TPU:{i}" for i in range(replicas)
        )
        self.num_hosts = 1


def _packing_as_int(original: Any) -> Any:
    def set_parameters(self: Any, parameters: Any) -> Any:
        self.low_dimensional_packing_status = int(self.low_dimensional_packing_status)
        return original(self, parameters)

    return set_parameters


@contextlib.contextmanager
def tpu_strategy_standin(feature: str, replicas: int, sparsecores: int = 4) -> Iterator[Any]:
    """Inside: ``tf.distribute.get_strategy()`` is a TPUStrategy of ``replicas`` replicas whose
    chips report embedding feature ``feature`` ("V1" or "V2")."""
    strategy = object.__new__(tpu_strategy.TPUStrategyV2)
    strategy.__dict__["_extended"] = _Extended(feature, replicas, sparsecores)
    with contextlib.ExitStack() as stack:
        for module in (distribute_lib, tf.distribute):
            stack.enter_context(mock.patch.object(module, "get_strategy", lambda: strategy))
        optimizer = tpu_embedding_v2_utils._Optimizer
        stack.enter_context(
            mock.patch.object(
                optimizer,
                "_set_optimization_parameters",
                _packing_as_int(optimizer._set_optimization_parameters),
            )
        )
        if feature == "V1":
            engine = tpu_embedding_v2.TPUEmbedding
            stack.enter_context(
                mock.patch.object(tpu_ops, "is_tpu_embedding_initialized", lambda: False)
            )
            stack.enter_context(
                mock.patch.object(tpu_lib, "initialize_system_for_tpu_embedding", lambda _: None)
            )
            stack.enter_context(mock.patch.object(engine, "_load_variables", lambda _: None))
            stack.enter_context(mock.patch.object(engine, "_retrieve_variables", lambda _: None))
        yield strategy
