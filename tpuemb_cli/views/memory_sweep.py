"""``explain --memory --tpu v5p,v6e,tpu7x``: the document's memory report for each TPU named,
made as ``explain --memory --tpu <that slice>`` makes it alone -- the same front-end's memory
function, through an engine whose settings name that slice, a copy of the document as read
settled for it first (a Keras-RS model's layers convert for the TPU) -- and gathered by chip.
Nothing here sizes anything: the verdicts are the reports' own (``MemoryReport.summary``)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tpuemb_cli.model.memory_sweep import ChipSweep, SliceVerdict, Sweep

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.frontends import Memory
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.accelerators import Accelerator
    from tpuemb_cli.spec.facts import SpecFacts


def sweep(
    document: Document,
    facts: SpecFacts | None,
    engine: Engine,
    memory: Memory,
    accelerators: tuple[Accelerator, ...],
) -> Sweep:
    """Each of ``accelerators`` asked of ``memory`` (the document's front-end's memory
    function), the chips in the order first named, each chip's slices smallest first."""
    from tpuemb_cli.frontends import settle_of
    from tpuemb_cli.model.schema import kind_of

    original = document.message
    assert original is not None
    # A front-end that settles writes the TPU's topology into the message, and reads it back
    # the next time: each slice settles a copy of the message as read, never the one before.
    settles = settle_of(kind_of(original)) is not None
    by_chip: dict[str, list[SliceVerdict]] = {}
    engine_name = ""
    for accelerator in accelerators:
        for_tpu = engine.for_tpu(accelerator.name)
        named = document
        if settles:
            message = type(original)()
            message.CopyFrom(original)
            for_tpu.settle(message)
            named = document._replace(message=message)
        report = memory(named, facts, for_tpu)
        engine_name = report.engine
        # Kept: what the sweep's views read (the summary, the words); not the model's fields
        # and table rows, thousands of them a slice.
        kept = replace(report, fields={}, rows=(), shares=None, notes=())
        verdict = SliceVerdict(accelerator.name, accelerator.chips, accelerator.devices, kept)
        by_chip.setdefault(accelerator.chip.name, []).append(verdict)
    # Each chip's slices smallest first, whatever order they were named in.
    chips = tuple(
        ChipSweep(chip, tuple(sorted(verdicts, key=lambda v: v.chips or 0)))
        for chip, verdicts in by_chip.items()
    )
    return Sweep(engine_name, document.name, chips)
