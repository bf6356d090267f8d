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


class StackMemory(Record):
    name: str
    rows_per_device: int
    width: int
    slots: tuple[str, ...]
    padding_rows: int  # rows of the device's share that pad the tables (no id reaches them)

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
    slots = SLOTS.get(optimizer, ())
    stacks = []
    for stack in stacking.stacks:
        rows = stack.stack_num_embeddings // devices
        real = sum(spec.tables[p.table].num_embeddings for p in stack.tables) // devices
        stacks.append(
            StackMemory(stack.name, rows, stack.stack_embedding_dim, slots, max(0, rows - real))
        )
    return TorchRecMemory(tuple(stacks), devices, per_device, optimizer)
