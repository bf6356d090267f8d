"""What every ``--memory`` view shares, whichever front-end's model it shows: the verdict's
wording against a chip's HBM, the share bar, a cut name, the JSON document's text. A first step
to one memory renderer (issue 37, point 2); meanwhile it keeps the views independent of each
other -- the JAX and SparseCore views took these from the TensorFlow view -- so that each can
move into its front-end's package."""

from __future__ import annotations

import json
from typing import Any

from tpuemb_cli.model.memory import WARNING_PERCENT
from tpuemb_cli.model.words import printable

BAR = 20  # characters of a 100% bar
NAME_WIDTH = 40  # a stacked name joins its members' names: longer ones are cut in the table


def bar(share: float) -> str:
    """A row's share of the total as a bar of ``BAR`` characters."""
    filled = round(share * BAR)
    return "#" * filled + "." * (BAR - filled)


def cut(name: str) -> str:
    """``name`` escaped, cut to ``NAME_WIDTH`` characters (a table's column)."""
    name = printable(name)
    return name[: NAME_WIDTH - 3] + "..." if len(name) > NAME_WIDTH else name


def hbm_verdict(used: int, hbm: int, exceeded: str, ask: str) -> tuple[str, int | None]:
    """The line that says whether ``used`` bytes fit in ``hbm`` (every engine's view words it so),
    and the budget the advice that follows aims at: all of the HBM when it does not fit, 80% of
    it when it fits with too little room, None when it fits (no advice)."""
    budget = hbm * WARNING_PERCENT // 100
    if used > hbm:
        return f"does not fit: {exceeded}. What would {ask}:", hbm
    if used > budget:
        left = 100 - WARNING_PERCENT
        return (
            f"fits, with less than {left}% left for the rest of the program. "
            f"What would leave {left}%:",
            budget,
        )
    return "fits", None


def document_text(document: Any) -> str:
    """A ``--memory --format json`` document as every view writes it."""
    return json.dumps(document, indent=2) + "\n"
