"""What the accumulator rules share: finding the accumulator behind a take/apply op."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.tensorflow.rules.lib.graph import Node

ACCUMULATORS = {
    "ResourceConditionalAccumulator",
    "ConditionalAccumulator",
    "SparseConditionalAccumulator",
}
# The apply ops, each with the index of its gradient (values) input: the sparse op takes the
# local step, then indices, values and the dense shape.
GRADIENT_INPUT = {
    "ResourceAccumulatorApplyGradient": 2,
    "AccumulatorApplyGradient": 2,
    "SparseAccumulatorApplyGradient": 3,
}
APPLY = set(GRADIENT_INPUT)
DENSE_APPLY = APPLY - {"SparseAccumulatorApplyGradient"}
TAKE = {
    "ResourceAccumulatorTakeGradient",
    "AccumulatorTakeGradient",
    "SparseAccumulatorTakeGradient",
}


def accumulator_of(node: Node) -> Node | None:
    """The accumulator node whose handle is ``node``'s first input (through Identity)."""
    producer = node.scope.producer(node, 0) if node.node.input else None
    seen = 0
    while producer is not None and producer.node.op == "Identity" and seen < 16:
        producer = producer.scope.producer(producer, 0) if producer.node.input else None
        seen += 1
    if producer is not None and producer.node.op in ACCUMULATORS:
        return producer
    return None


def users(view: Any, ops: set[str]) -> Iterator[tuple[Node, Node]]:
    """(op, its accumulator) for each take or apply op whose accumulator is in the graph."""
    for node in view.nodes(*sorted(ops)):
        accumulator = accumulator_of(node)
        if accumulator is not None:
            yield node, accumulator


def dtype_attr(node: Node, name: str = "dtype") -> int | None:
    value = node.attr(name)
    return int(value.type) if value is not None and value.WhichOneof("value") == "type" else None


def output_dtype(node: Node | None) -> int | None:
    """The dtype a producer outputs, where its attributes say (Const, Placeholder, T ops)."""
    if node is None:
        return None
    return dtype_attr(node, "dtype") if node.attr("dtype") is not None else dtype_attr(node, "T")


def const_int(node: Node | None) -> int | None:
    """The value of a scalar integer Const."""
    if node is None or node.node.op != "Const":
        return None
    value = node.attr("value")
    if value is None or value.WhichOneof("value") != "tensor":
        return None
    tensor = value.tensor
    if tensor.int_val:
        return int(tensor.int_val[0])
    if tensor.int64_val:
        return int(tensor.int64_val[0])
    if len(tensor.tensor_content) == 4:
        return int(struct.unpack("<i", tensor.tensor_content)[0])
    if len(tensor.tensor_content) == 8:
        return int(struct.unpack("<q", tensor.tensor_content)[0])
    return 0 if tensor.dtype in (3, 9) and not tensor.tensor_content else None


def const_shape(node: Node | None) -> list[int] | None:
    if node is None or node.node.op != "Const":
        return None
    value = node.attr("value")
    if value is None or value.WhichOneof("value") != "tensor":
        return None
    shape = value.tensor.tensor_shape
    if shape.unknown_rank:
        return None
    return [int(dim.size) for dim in shape.dim]


def dtype_name(number: int | None) -> str:
    from tpuemb_cli.pb.framework.types_pb2 import DataType

    if number is None:
        return "unknown"
    try:
        return str(DataType.Name(number)).removeprefix("DT_").lower()
    except ValueError:
        return str(number)
