"""What the memory rules share: how they say how much the tables take and what would help."""

from __future__ import annotations

from tpuemb_cli.model.advice import Demand, smallest_slice
from tpuemb_cli.model.words import count, plural
from tpuemb_cli.rules.base import Config, Fit


def taken(fit: Fit, shown: str) -> str:
    """``the tables' parameters and optimizer state take 120.0 GiB on the fullest of 4 cores``
    (``shown``: the size as the message writes it), with the refused tables not counted."""
    memory = fit.memory
    refused = (
        f" ({plural(len(memory.refused), 'table')} TensorFlow would refuse not counted)"
        if memory.refused
        else ""
    )
    return (
        f"the embedding tables' parameters and optimizer state take {shown} on "
        f"the fullest of {plural(memory.shards, 'core')}{refused}"
    )


def remedy(config: Config, fit: Fit, budget: int) -> str:
    """What would bring the fullest core to at most ``budget`` bytes: a real slice of the chip."""
    advice = smallest_slice(Demand(fit.memory, config), fit.chip, budget)
    found = advice.fits
    if found is not None and (found.devices or 0) > fit.memory.shards:
        more = (
            f"run on a {found.describe()} or larger (`num_tensor_cores` "
            f"{count(found.devices or 0)})"
        )
    elif advice.largest is None:
        more = f"tpuemb knows no {fit.chip.name} slice sizes to suggest"
    else:
        more = (
            f"more cores cannot help: not even a {advice.largest.describe()}, the largest "
            f"{fit.chip.name} slice, holds it"
        )
    return (
        f"{more}, or use cheaper optimizer state (`tpuemb explain --memory` shows each table's "
        "share and what disabling gradient accumulation or SGD would save)"
    )
