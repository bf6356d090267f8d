"""Runtime guards: the checks TensorFlow's ops skip, run in the training loop before the call.

    from tpuemb_cli.guards import check_send_gradients, check_cudnn_rnn
    check_send_gradients(config, gradients, learning_rates)   # before send_tpu_embedding_gradients
    check_cudnn_rnn(inputs, input_h, input_c, params, rnn_mode="lstm")

Arguments are NumPy arrays, TensorFlow tensors, or anything else with ``.shape`` and ``.dtype``;
TensorFlow is never imported. Each guard raises one GuardError listing every problem it found.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from google.protobuf.message import Message

from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import (
    DIRECTIONS,
    GATES,
    INPUT_MODES,
    params_size,
)
from tpuemb_cli.frontends.tensorflow.rules.lib.embedding_ops import (
    activation_shapes,
    activations,
    distinct_tags,
)
from tpuemb_cli.model.words import plural
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration


class GuardError(ValueError):
    """Every problem a guard found; ``problems`` has them one by one."""

    def __init__(self, what: str, problems: list[str]) -> None:
        self.problems = problems
        listed = "\n".join(f"  - {problem}" for problem in problems)
        super().__init__(f"{what}: {plural(len(problems), 'problem')}:\n{listed}")


def _shape(value: Any) -> tuple[int | None, ...] | None:
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    dims = []
    for dim in shape:
        size = getattr(dim, "value", dim)  # a TF1 Dimension
        dims.append(None if size is None else int(size))
    return tuple(dims)


def _dtype(value: Any) -> str | None:
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return None
    return str(getattr(dtype, "name", dtype))


def _config(config: Any) -> TPUEmbeddingConfiguration:
    if isinstance(config, TPUEmbeddingConfiguration):
        return config
    ours = TPUEmbeddingConfiguration()
    ours.ParseFromString(config if isinstance(config, bytes) else config.SerializeToString())
    return ours


def _finite_scalar(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number


def check_send_gradients(
    config: Message | bytes, gradients: Sequence[Any], learning_rates: Sequence[Any]
) -> None:
    """Checks what ``send_tpu_embedding_gradients`` would be given, against ``config``.

    The number of gradients equals the config's features (tables, without feature
    descriptors); the number of learning rates its distinct dynamic tags; each learning rate is a
    finite float32 scalar; each gradient is float32 and has its activation's shape (the feature's
    input shape, batch times SPMD cores per replica, then the table's dimension).
    """
    parsed = _config(config)
    problems: list[str] = []
    expected, what = activations(parsed)
    if len(gradients) != expected:
        problems.append(f"{plural(len(gradients), 'gradient')} for the config's {expected} {what}")
    tags = distinct_tags(parsed)
    if len(learning_rates) != tags:
        problems.append(
            f"{plural(len(learning_rates), 'learning rate')} for the config's "
            f"{plural(tags, 'dynamic tag')}"
        )
    for index, rate in enumerate(learning_rates):
        shape, dtype = _shape(rate), _dtype(rate)
        if dtype != "float32":
            problems.append(f"learning rate {index} is {dtype or type(rate).__name__}, not float32")
        if shape not in ((), None):
            problems.append(f"learning rate {index} has shape {list(shape)}, not a scalar")
        number = _finite_scalar(rate) if shape in ((), None) else None
        if number is not None and not math.isfinite(number):
            problems.append(f"learning rate {index} is {number}, not a finite number")
    # A count mismatch is reported above; the shapes are compared as far as both lists go.
    pairs = zip(gradients, activation_shapes(parsed), strict=False)
    for index, (gradient, want) in enumerate(pairs):
        shape, dtype = _shape(gradient), _dtype(gradient)
        if dtype is not None and dtype != "float32":
            problems.append(f"gradient {index} is {dtype}, not float32")
        if shape is None:
            problems.append(f"gradient {index} has no shape")
        elif want and list(shape) != want and None not in shape:
            problems.append(f"gradient {index} has shape {list(shape)}, expected {want}")
    if problems:
        raise GuardError("send_tpu_embedding_gradients", problems)


def check_cudnn_rnn(
    inputs: Any,
    input_h: Any,
    input_c: Any | None,
    params: Any,
    *,
    rnn_mode: str = "lstm",
    input_mode: str = "linear_input",
    direction: str = "unidirectional",
    num_proj: int = 0,
    time_major: bool = True,
    dropout: float = 0.0,
) -> None:
    """Checks the shape contract of a cuDNN RNN call (CudnnRNNV3 and friends).

    input [time, batch, features] ([batch, time, features] when not time-major); input_h (and
    input_c for an LSTM) [layers x directions, batch, units]; the attributes valid; skip_input only
    with features == units; num_proj only on an LSTM and not above units; params exactly the size
    of cuDNN's canonical layout.
    """
    problems: list[str] = []
    if rnn_mode not in GATES:
        problems.append(f"rnn_mode {rnn_mode!r} is not one of {', '.join(GATES)}")
    if input_mode not in INPUT_MODES:
        problems.append(f"input_mode {input_mode!r} is not one of {', '.join(INPUT_MODES)}")
    if direction not in DIRECTIONS:
        problems.append(f"direction {direction!r} is not one of {', '.join(DIRECTIONS)}")
    if not 0 <= dropout < 1:
        problems.append(f"dropout {dropout} is not in [0, 1)")
    x, h = _shape(inputs), _shape(input_h)
    c = _shape(input_c) if input_c is not None else None
    lstm = rnn_mode == "lstm"
    for name, shape in (("input", x), ("input_h", h)) + ((("input_c", c),) if lstm else ()):
        if shape is None or len(shape) != 3:
            problems.append(f"{name} must be rank 3, got {list(shape) if shape else shape}")
    if num_proj < 0:
        problems.append(f"num_proj {num_proj} is negative")
    elif num_proj and not lstm:
        problems.append(f"num_proj {num_proj} on a {rnn_mode} RNN: only LSTMs project")
    if not problems and x is not None and h is not None:
        directions = 2 if direction == "bidirectional" else 1
        batch = x[1] if time_major else x[0]
        states = [("input_h", h)] + ([("input_c", c)] if lstm and c is not None else [])
        for name, shape in states:
            if shape[1] != batch:
                problems.append(f"{name} has batch {shape[1]}, the input {batch}")
        if lstm and c is not None and h[0] != c[0]:
            problems.append(f"input_c has {c[0]} layers x directions, input_h {h[0]}")
        if h[0] is not None and h[0] % directions:
            problems.append(f"input_h has {h[0]} layers x directions for {directions} directions")
        units = c[2] if lstm and c is not None else h[2]
        if num_proj and units is not None and num_proj > units:
            problems.append(f"num_proj {num_proj} exceeds the {units} units")
        if input_mode == "skip_input" and x[2] != units:
            problems.append(f"skip_input needs features == units, got {x[2]} and {units}")
        p = _shape(params)
        if not problems and p is not None and len(p) == 1 and None not in (p[0], x[2], units, h[0]):
            assert units is not None and h[0] is not None and x[2] is not None
            expected = params_size(
                rnn_mode, input_mode, direction, h[0] // directions, units, x[2], num_proj
            )
            if p[0] != expected:
                problems.append(f"params has {p[0]} values; cuDNN's layout needs {expected}")
    if problems:
        raise GuardError("cuDNN RNN", problems)
