"""Which SparseCore group a table's optimizer puts it in: the key TensorFlow 2.21 gives the stacker.

``_stack_tables_with_same_table_dim_and_optimizer`` (tensorflow/python/tpu/tpu_embedding_v3.py at
v2.21.0) keys each table by ``"_xxtpuv3internal_" + sha1(repr((hash(table.optimizer),
repr(table.quantization_config))))``. ``hash(optimizer)`` is ``hash(tuple(optimizer.__dict__
.items()))`` (``_WithSlotVariables.__hash__`` in tpu_embedding_v2_utils.py), so two tables stack
when their optimizers hold equal settings, whether or not they are the same object, and the key --
which orders the stacks -- depends on how the TensorFlow process hashes strings and None
(``model.pyhash``).

Here the spec's optimizer becomes the ``__dict__`` TensorFlow's constructor would fill, item for
item and in its order. The spec stores floats as float32; the Python float is the shortest
decimal that reads back as the same float32 (``0.05`` for the float32 nearest 0.05), which is what
a training script writes. A learning-rate schedule is a Python function in TensorFlow, hashed by
its address, which no one outside that process can know: ``Schedule`` stands for it, hashed as its
name (a stand-in, reported by ``GroupKey.reproducible``).
"""

from __future__ import annotations

import hashlib
import struct
from typing import NamedTuple

from google.protobuf.message import Message

from tpuemb_cli.model import optimizers
from tpuemb_cli.model.pyhash import HashableValue, HashContext, str_hash, tuple_hash, value_hash
from tpuemb_cli.pb.spec.embedding_spec_pb2 import Optimizer, Quantization

GROUP_PREFIX = "_xxtpuv3internal_"


class Schedule(NamedTuple):
    """A learning-rate function, by the spec's name for it."""

    name: str


DictValue = HashableValue | Schedule


class GroupKey(NamedTuple):
    key: str  # the group string the stacker gets
    optimizer_hash: int  # hash(optimizer) in the process the context describes
    reproducible: bool  # False when a learning-rate schedule's hash had to be stood in for


def python_float(value: float) -> float:
    """The shortest decimal that reads back as the float32 ``value``: what the user wrote."""
    target = struct.pack("<f", value)
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        if struct.pack("<f", candidate) == target:
            return candidate
    return float(value)


def _optional(message: Message, field: str) -> float | None:
    return python_float(getattr(message, field)) if message.HasField(field) else None


def optimizer_dict(optimizer: Optimizer) -> list[tuple[str, DictValue]]:
    """The optimizer's ``__dict__`` items as TensorFlow's constructor sets them, in order."""
    row = optimizers.of_spec(optimizer.WhichOneof("algorithm"))
    assert row is not None  # plan() refuses an optimizer without a SparseCore update
    rate = optimizer.learning_rate
    learning_rate: DictValue
    which = rate.WhichOneof("value")
    if which == "schedule":
        learning_rate = Schedule(rate.schedule)
    elif which == "constant":
        learning_rate = python_float(rate.constant)
    else:
        learning_rate = row.learning_rate
    clip = optimizer.clipvalue
    kind = clip.WhichOneof("kind") if optimizer.HasField("clipvalue") else None
    clip_min: float | None = None
    clip_max: float | None = None
    if kind == "scalar":
        clip_max = python_float(clip.scalar)
        clip_min = -1.0 * clip_max
    elif kind == "range":
        clip_min = _optional(clip.range, "min")
        clip_max = _optional(clip.range, "max")
    items: list[tuple[str, DictValue]] = [
        ("slot_variable_creation_fn", None),
        ("learning_rate", learning_rate),
        (
            "use_gradient_accumulation",
            optimizer.use_gradient_accumulation
            if optimizer.HasField("use_gradient_accumulation")
            else True,
        ),
        ("clip_weight_min", _optional(optimizer, "clip_weight_min")),
        ("clip_weight_max", _optional(optimizer, "clip_weight_max")),
        ("clip_gradient_min", clip_min),
        ("clip_gradient_max", clip_max),
        ("weight_decay_factor", _optional(optimizer, "weight_decay_factor")),
        (
            "multiply_weight_decay_factor_by_learning_rate",
            optimizer.multiply_weight_decay_factor_by_learning_rate
            if optimizer.HasField("multiply_weight_decay_factor_by_learning_rate")
            else None,
        ),
        ("low_dimensional_packing_status", optimizer.low_dimensional_packing_status),
    ]
    items.extend(_algorithm_items(optimizer, row))
    return items


def _algorithm_items(
    optimizer: Optimizer, row: optimizers.Optimizer
) -> list[tuple[str, DictValue]]:
    """The class's own attributes, in the order its constructor assigns them: the spec's value,
    else TensorFlow's default."""
    settings = getattr(optimizer, row.spec)
    items: list[tuple[str, DictValue]] = []
    for argument in row.arguments:
        value: DictValue = argument.default
        if settings.HasField(argument.name):
            found = getattr(settings, argument.name)
            value = found if isinstance(found, bool) else python_float(found)
        items.append((argument.name, value))
    return items


def quantization_repr(quantization: Quantization | None) -> str:
    """``repr(table.quantization_config)``: TensorFlow's QuantizationConfig.__repr__, or None's."""
    if quantization is None:
        return "None"
    return (
        f"QuantizationConfig(num_buckets={quantization.num_buckets!r}, "
        f"lower={python_float(quantization.lower)!r}, upper={python_float(quantization.upper)!r})"
    )


def group_key(
    optimizer: Optimizer, quantization: Quantization | None, context: HashContext
) -> GroupKey:
    """The stacker's group for a table with this optimizer and quantization."""
    reproducible = True
    item_hashes = []
    for name, value in optimizer_dict(optimizer):
        if isinstance(value, Schedule):
            reproducible = False
            value_hash_ = str_hash(value.name, context.seed)
        else:
            value_hash_ = value_hash(value, context)
        item_hashes.append(tuple_hash((str_hash(name, context.seed), value_hash_)))
    optimizer_hash = tuple_hash(item_hashes)
    text = repr((optimizer_hash, quantization_repr(quantization)))
    digest = hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()
    return GroupKey(GROUP_PREFIX + digest, optimizer_hash, reproducible)
