"""What ``tpuemb diff`` knows of a document before it compares: its checkpoint layout (the family
its checkpoints are of, and what it is in a user's words), and why a pair cannot be compared. Each
front-end says the layout of its kinds (its compat module's ``layout_<kind>``); the workspace
pairs them (workspace/pairing)."""

from __future__ import annotations

from typing import NamedTuple


class Layout(NamedTuple):
    """A side's checkpoint family (None: it has no checkpoint layout) and what it is, in a
    user's words; ``against_checkpoint``: why ``--against-checkpoint`` (TensorFlow's checkpoints)
    does not compare it ("": it does); ``any_error_refuses``: see below."""

    family: str | None
    what: str
    against_checkpoint: str = ""
    # Whether any error refuses the comparison (a spec, as ``compile`` refuses one with errors:
    # it would be compared with made-up values), not only one of its loading (a config).
    any_error_refuses: bool = False


class CannotCompare(Exception):
    """A pair whose checkpoints have nothing in common to compare; the message says why, naming
    each side's kind."""
