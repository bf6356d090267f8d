"""Which TPU does it fit (issue 42): the memory report of one document asked of every chip and
slice size named (``explain --memory --tpu v5p,v6e,tpu7x``). Each slice's verdict is the report
``explain --memory --tpu <that slice>`` makes alone -- the sweep asks the front-end's one memory
model once a slice and reads its ``summary``; it sizes nothing itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tpuemb_cli.model.memory_report import JSON_VERSION, MemoryReport


@dataclass(frozen=True)
class SliceVerdict:
    """One slice (or a chip named without a size: ``chips`` None) and its report."""

    accelerator: str  # as tpuemb writes it: ``v5p-128``, ``v5litepod-16``, ``tpu7x``
    chips: int | None
    devices: int | None  # TensorFlow cores / JAX devices in the slice
    report: MemoryReport

    @property
    def status(self) -> str:
        return self.report.status

    def document(self) -> dict[str, Any]:
        summary = self.report.summary()
        return {
            "accelerator": self.accelerator,
            "chips": self.chips,
            "devices": self.devices,
            **{key: summary[key] for key in _SLICE_KEYS},
        }


# What a slice's row of the sweep's JSON says of its report's summary.
_SLICE_KEYS = (
    "status", "unit", "used_bytes", "hbm_bytes", "share", "cannot_run", "mismatch", "not_sized"
)  # fmt: skip
# The verdicts that count as the document fitting the slice.
FITTING = ("fits", "near")


@dataclass(frozen=True)
class ChipSweep:
    """A chip's slices, smallest first, and the smallest the document fits."""

    chip: str
    slices: tuple[SliceVerdict, ...]

    @property
    def smallest_fit(self) -> SliceVerdict | None:
        """The smallest slice that fits (``fits`` or ``near``) and that the document is laid
        out for (a slice whose figures are another topology's answers for that one, not for
        the slice); None when none does."""
        for verdict in self.slices:
            if verdict.status in FITTING and not verdict.report.mismatch:
                return verdict
        return None

    @property
    def cannot_run(self) -> str:
        """Why the chip cannot run the document at all (every slice says so), else ""."""
        reasons = {verdict.report.cannot_run for verdict in self.slices}
        return reasons.pop() if len(reasons) == 1 else ""

    def document(self) -> dict[str, Any]:
        smallest = self.smallest_fit
        return {
            "chip": self.chip,
            "smallest_fit": smallest.accelerator if smallest is not None else None,
            "cannot_run": self.cannot_run or None,
            "slices": [verdict.document() for verdict in self.slices],
        }


@dataclass(frozen=True)
class Sweep:
    """The sweep of one document: its engine and name, each chip's slices."""

    engine: str
    file: str
    chips: tuple[ChipSweep, ...]
    version: int = JSON_VERSION

    def document(self) -> dict[str, Any]:
        """The JSON document: ``version``, ``engine``, ``file``, ``sweep`` (one entry a chip)."""
        return {
            "version": self.version,
            "engine": self.engine,
            "file": self.file,
            "sweep": [chip.document() for chip in self.chips],
        }
