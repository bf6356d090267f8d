"""What torchrec's fused collection allocates on each device: every stack's weight and optimizer
state, as ``_SparseCoreFusedEmbeddingBase.__init__`` builds them (torchrec 1.9.2,
``modules/fused_embedding_modules.py``): a stack's weight is ``stack_num_embeddings //
global_device_count`` rows of ``stack_embedding_dim`` float32 values on each device, and its
optimizer's state the same shape again per slot (Adagrad's ``accumulators``, Adam's
``momentums`` and ``velocities``; SGD none), plus a float32 learning rate a stack. The input
buffers of its preprocessing are not counted: they depend on the batch's ids."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.torchrec.spec.stacking import (
    DEFAULT_DEVICES,
    DEFAULT_SPARSECORES,
    Stacking,
    value,
)
from tpuemb_cli.model.records import Record

FLOAT_BYTES = 4
# The optimizer classes the fused collection builds state for (torch.optim's), and that state's
# parameter dicts (the checkpoint's names: `accumulators.<stack>`, ...).
SLOTS: dict[str, tuple[str, ...]] = {
    "SGD": (),
    "Adagrad": ("accumulators",),
    "Adam": ("momentums", "velocities"),
}


# The learning rate the collection gives every stack when `optimizer_kwargs` has none (its
# `self._optimizer_kwargs.get("lr", 0.01)`), and Adagrad's accumulators' start.
DEFAULT_LEARNING_RATE = 0.01
DEFAULT_INITIAL_ACCUMULATOR = 0.0


class StackMemory(Record):
    name: str
    rows_per_device: int  # stack_num_embeddings // global_device_count: the weight's rows
    width: int  # stack_embedding_dim (the widest table's, rounded up to 8)
    slots: tuple[str, ...]
    # The stack's rows that pad its tables, over all devices: stack_num_embeddings less the
    # tables' num_embeddings (each table rounded up to 8 rows a SparseCore). No id reaches them.
    padding_rows: int
    rows_per_sparse_core: int  # stack_num_embeddings // (devices x SparseCores a device)
    table_rows: int  # the tables' num_embeddings, summed

    @property
    def array_bytes(self) -> int:
        return self.rows_per_device * self.width * FLOAT_BYTES

    @property
    def bytes_per_device(self) -> int:
        """The weight, each slot, and the stack's learning rate."""
        return self.array_bytes * (1 + len(self.slots)) + FLOAT_BYTES


class TorchRecMemory(Record):
    stacks: tuple[StackMemory, ...]
    devices: int
    per_device: int  # SparseCores a device
    optimizer: str  # the optimizer class ("" with no collection: parameters only)
    learning_rate: float = DEFAULT_LEARNING_RATE  # every stack's (one float32 scalar each)
    initial_accumulator: float = DEFAULT_INITIAL_ACCUMULATOR  # Adagrad's accumulators' start

    @property
    def optimizer_known(self) -> bool:
        return self.optimizer in SLOTS

    @property
    def per_device_bytes(self) -> int:
        return sum(stack.bytes_per_device for stack in self.stacks)

    @property
    def parameters_per_device(self) -> int:
        """A device's bytes with SGD (no optimizer state)."""
        return sum(stack.array_bytes + FLOAT_BYTES for stack in self.stacks)

    @property
    def weights_per_device(self) -> int:
        return sum(stack.array_bytes for stack in self.stacks)

    @property
    def state_per_device(self) -> int:
        """The optimizer's state a device: each slot, the weight's shape."""
        return sum(stack.array_bytes * len(stack.slots) for stack in self.stacks)

    @property
    def learning_rates_bytes(self) -> int:
        return FLOAT_BYTES * len(self.stacks)


def learning_rate(kwargs: Any) -> float:
    """The collection's `lr`: `learning_rate` renamed when given (it wins over `lr`), else
    `lr`, else 0.01."""
    if "learning_rate" in kwargs:
        return float(kwargs["learning_rate"])
    return float(kwargs.get("lr", DEFAULT_LEARNING_RATE))


def model(spec: Any, stacking: Stacking) -> TorchRecMemory | None:
    """The collection's memory on each device, or None when the library refuses the stacks (no
    weight is built) or there are none."""
    if stacking.refusal is not None or not stacking.stacks:
        return None
    topology = spec.collection if spec.HasField("collection") else spec.prepare
    devices = value(topology, "global_device_count", DEFAULT_DEVICES)
    per_device = value(topology, "num_sc_per_device", DEFAULT_SPARSECORES)
    if devices <= 0:
        return None
    optimizer = spec.collection.optimizer.type if spec.HasField("collection") else ""
    kwargs = spec.collection.optimizer.kwargs
    slots = SLOTS.get(optimizer, ())
    shards = devices * per_device
    stacks = []
    for stack in stacking.stacks:
        real = sum(spec.tables[p.table].num_embeddings for p in stack.tables)
        stacks.append(
            StackMemory(
                stack.name,
                stack.stack_num_embeddings // devices,
                stack.stack_embedding_dim,
                slots,
                max(0, stack.stack_num_embeddings - real),
                stack.stack_num_embeddings // shards if shards > 0 else 0,
                real,
            )
        )
    return TorchRecMemory(
        tuple(stacks),
        devices,
        per_device,
        optimizer,
        learning_rate(kwargs),
        float(kwargs.get("initial_accumulator_value", DEFAULT_INITIAL_ACCUMULATOR)),
    )
