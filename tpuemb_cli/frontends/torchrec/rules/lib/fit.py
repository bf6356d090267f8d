"""The memory rules' view of a TorchRec collection: its devices' fill of the chip's HBM."""

from __future__ import annotations

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.frontends.torchrec.spec.memory import TorchRecMemory, model
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import plural
from tpuemb_cli.rules.base import Fit
from tpuemb_cli.rules.lib.fit import Budget


class TorchRecFit(Record):
    """A collection's memory model, budgeted per device (``rules/base.Budgeted``)."""

    memory: TorchRecMemory
    path: FieldPath

    def budget(self, chip: Chip) -> Budget:
        memory = self.memory
        hbm = chip.hbm_per_core
        assert hbm is not None  # fit_of builds one only for a chip whose HBM is known
        state = "weights and optimizer state" if memory.optimizer_known else "weights"

        def taken(shown: str) -> str:
            return (
                f"the stacked tables' {state} take {shown} on each device (torchrec's fused "
                f"collection: {plural(memory.devices, 'device')} of {memory.per_device} "
                "SparseCores)"
            )

        def remedy(most: int) -> str:
            more = "run on more devices (`global_device_count`: each holds 1/devices of a stack)"
            sgd = memory.parameters_per_device
            if sgd == memory.per_device_bytes:
                return f"{more}, or use smaller or fewer tables"
            return (
                f"{more}, or use cheaper optimizer state (SGD takes {size(sgd)} a device: "
                f"{'enough' if sgd <= most else 'not enough'}; `tpuemb explain --memory` shows "
                "each stack's share)"
            )

        return Budget(
            (*self.path, "global_device_count"),
            memory.per_device_bytes,
            hbm,
            "device",
            "activations, input buffers and XLA's working set",
            taken,
            remedy,
        )


def fit_of(facts: Facts, chip: Chip) -> Fit | None:
    """The memory rules' Fit, when the chip's HBM is known and the collection builds weights."""
    if chip.hbm_per_core is None:
        return None
    memory = model(facts.spec, facts.stacking)
    if memory is None:
        return None
    return Fit(chip, TorchRecFit(memory, facts.topology_path))
