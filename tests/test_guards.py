"""The runtime guards, with NumPy arrays and with plain objects that have .shape and .dtype."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from tpuemb_cli.guards import GuardError, check_cudnn_rnn, check_send_gradients
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

from .helpers import CONFIGS

np = pytest.importorskip("numpy")


class Fake(NamedTuple):
    shape: tuple[int, ...]
    dtype: str


def config(name: str) -> TPUEmbeddingConfiguration:
    loaded = TPUEmbeddingConfiguration()
    loaded.ParseFromString((CONFIGS / f"{name}.pb").read_bytes())
    return loaded


def test_send_gradients_that_match() -> None:
    # shared_callable_lr: 4 features of input_shape [8] on tables of dimension 4; 2 tags.
    gradients = [np.zeros((8, 4), np.float32) for _ in range(4)]
    rates = [np.float32(0.1), np.array(0.2, np.float32)]
    check_send_gradients(config("shared_callable_lr"), gradients, rates)
    check_send_gradients(config("shared_callable_lr").SerializeToString(), gradients, rates)


def test_send_gradients_lists_every_problem() -> None:
    gradients: list[Any] = [
        np.zeros((8, 4), np.float32),
        np.zeros((8, 5), np.float32),
        np.zeros((8, 4), np.float64),
    ]
    rates = [np.float64(0.1), np.array([0.1, 0.2], np.float32), np.float32("nan")]
    with pytest.raises(GuardError) as raised:
        check_send_gradients(config("shared_callable_lr"), gradients, rates)
    assert raised.value.problems == [
        "3 gradients for the config's 4 features",
        "3 learning rates for the config's 2 dynamic tags",
        "learning rate 0 is float64, not float32",
        "learning rate 1 has shape [2], not a scalar",
        "learning rate 2 is nan, not a finite number",
        "gradient 1 has shape [8, 5], expected [8, 4]",
        "gradient 2 is float64, not float32",
    ]
    assert str(raised.value).startswith("send_tpu_embedding_gradients: 7 problems:\n  - 3 grad")


def test_send_gradients_with_spmd_multiplies_the_batch() -> None:
    # pipelining_and_spmd: input_shape [32], 2 cores per replica, dimension 64.
    check_send_gradients(config("pipelining_and_spmd"), [Fake((64, 64), "float32")], [])


def test_cudnn_contract() -> None:
    x, h, c = np.zeros((5, 3, 4), np.float32), np.zeros((1, 3, 6), np.float32), np.zeros((1, 3, 6))
    check_cudnn_rnn(x, h, c, np.zeros((288,), np.float32))
    with pytest.raises(GuardError) as raised:
        check_cudnn_rnn(x, np.zeros((1, 7, 6)), c, np.zeros((100,)), input_mode="skip_input")
    assert raised.value.problems == [
        "input_h has batch 7, the input 3",
        "skip_input needs features == units, got 4 and 6",
    ]
    with pytest.raises(GuardError) as raised:
        check_cudnn_rnn(x, h, c, np.zeros((100,)))
    assert raised.value.problems == ["params has 100 values; cuDNN's layout needs 288"]
    with pytest.raises(GuardError) as raised:
        check_cudnn_rnn(x, h, None, Fake((1,), "float32"), rnn_mode="gru", num_proj=2, dropout=1.0)
    assert raised.value.problems == [
        "dropout 1.0 is not in [0, 1)",
        "num_proj 2 on a gru RNN: only LSTMs project",
    ]
