"""What the cuDNN RNN rules share: attributes, known shapes, and cuDNN's canonical params size."""

from __future__ import annotations

from typing import Any, NamedTuple

from tpuemb_cli.frontends.tensorflow.rules.lib.graph import Node

FORWARD = {"CudnnRNN", "CudnnRNNV2", "CudnnRNNV3"}
BACKPROP = {"CudnnRNNBackprop", "CudnnRNNBackpropV2", "CudnnRNNBackpropV3"}
RNN_MODES = ("rnn_relu", "rnn_tanh", "lstm", "gru")
INPUT_MODES = ("linear_input", "skip_input", "auto_select")
DIRECTIONS = ("unidirectional", "bidirectional")
# Gates per cell: the number of weight matrices (and bias pairs) each layer and direction has.
GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
# Attributes a backprop op must share with its forward op.
SHARED = (
    "rnn_mode",
    "input_mode",
    "direction",
    "dropout",
    "seed",
    "seed2",
    "num_proj",
    "time_major",
    "T",
)


def string_attr(node: Node, name: str, default: str) -> str:
    value = node.attr(name)
    if value is None or value.WhichOneof("value") != "s":
        return default
    text: str = value.s.decode("utf-8", errors="replace")
    return text


def shape_of(producer: Node | None) -> list[int] | None:
    """A producer's output shape where its attributes give it (-1: unknown dimension)."""
    if producer is None:
        return None
    for name in ("shape", "_output_shapes"):
        value = producer.attr(name)
        if value is None:
            continue
        kind = value.WhichOneof("value")
        shape = (
            value.shape
            if kind == "shape"
            else (value.list.shape[0] if kind == "list" and value.list.shape else None)
        )
        if shape is None or shape.unknown_rank:
            return None
        return [int(dim.size) for dim in shape.dim]
    if producer.node.op == "Const":
        value = producer.attr("value")
        if value is not None and value.WhichOneof("value") == "tensor":
            return [int(dim.size) for dim in value.tensor.tensor_shape.dim]
    return None


class Shapes(NamedTuple):
    input: list[int] | None
    input_h: list[int] | None
    input_c: list[int] | None
    params: list[int] | None


def shapes(node: Node) -> Shapes:
    found = [
        shape_of(node.scope.producer(node, i)) if i < len(node.node.input) else None
        for i in range(4)
    ]
    return Shapes(*found)


def known(value: int | None) -> bool:
    return value is not None and value >= 0


def params_size(
    rnn_mode: str,
    input_mode: str,
    direction: str,
    num_layers: int,
    num_units: int,
    input_size: int,
    num_proj: int = 0,
) -> int:
    """The size of cuDNN's opaque params buffer in its canonical layout (CudnnRNNParamsSize).

    Per layer and direction: `gates` weight matrices on the layer's input (num_units x
    input size; none on the first layer with skip_input, which feeds the input through), `gates`
    on the recurrent state (num_units x num_units, or x num_proj with a projection), two bias
    vectors of num_units per gate, and for an LSTM with a projection, its num_proj x num_units
    matrix. Later layers' input is the previous layer's output: num_units (or num_proj) per
    direction.
    """
    gates = GATES[rnn_mode]
    directions = 2 if direction == "bidirectional" else 1
    state = num_proj if num_proj else num_units
    if num_layers < 1:
        return 0

    def layer_size(layer_input: int | None) -> int:
        """One layer, both directions; ``layer_input`` None: no input matrices."""
        per_direction = gates * num_units * state + 2 * gates * num_units
        if layer_input is not None:
            per_direction += gates * num_units * layer_input
        if num_proj:
            per_direction += num_proj * num_units
        return per_direction * directions

    # Every layer after the first has the same size: multiplied, not summed layer by layer (the
    # layer count comes from a shape in the graph, and may be any int64).
    first = layer_size(None if input_mode == "skip_input" else input_size)
    return first + (num_layers - 1) * layer_size(state * directions)


def forward_of(view: Any, backprop: Node) -> Node | None:
    """The forward op a backprop op differentiates: the producer of its reserve space."""
    for position in range(len(backprop.node.input)):
        producer = backprop.scope.producer(backprop, position)
        if producer is not None and producer.node.op in FORWARD:
            return producer
    return None
