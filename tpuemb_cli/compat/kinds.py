"""The change record.

A change's ``kind`` is the name of a rule of the catalog (``rules/diff/``: its code, severity
and documentation), so that a change is reported, selected, acknowledged and formatted as any
finding is: ``restore-error``, ``silent-reinit``, ``orphaned-state``, ``training-change``,
``topology-change``, ``cosmetic``, ``unsaved-state`` or ``unverified-layout``.
"""

from __future__ import annotations

from typing import NamedTuple

from tpuemb_cli.model.findings import Position, Value
from tpuemb_cli.model.paths import FieldPath

__all__ = ["Change", "Placed", "Value"]


class Change(NamedTuple):
    """One change, addressed by the config field it is about.

    ``side`` says which file it is placed in: ``new``, or ``old`` for what the new config no
    longer has. ``path`` is in config terms (``table_descriptor[2].dimension``); ``sides``
    turns it into the file's own terms and a position.
    """

    kind: str
    table: str | None
    path: FieldPath
    old: Value
    new: Value
    message: str
    side: str = "new"
    help: str = ""  # how to carry the state across, where tpuemb knows a way


class Placed(NamedTuple):
    """A change placed in a file: its field path in that file's terms, and where it lies there
    (None for binary input, which has no lines)."""

    kind: str
    table: str | None
    path: FieldPath
    old: Value
    new: Value
    message: str
    file: str
    position: Position | None
    help: str = ""
