"""The comparison of two loaded documents (a config or a spec each), and files that exist on
one side only (``tpuemb diff --against``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from tpuemb_cli.compat.features import feature_changes
from tpuemb_cli.compat.kinds import Change, Placed
from tpuemb_cli.compat.matching import identities
from tpuemb_cli.compat.sides import Side, side_of
from tpuemb_cli.compat.tables import table_changes
from tpuemb_cli.compat.topology import topology_changes
from tpuemb_cli.load import Document
from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.words import plural

if TYPE_CHECKING:
    from tpuemb_cli.spec.facts import SpecFacts


def compare(
    old_document: Document,
    new_document: Document,
    old_facts: SpecFacts | None = None,
    new_facts: SpecFacts | None = None,
) -> list[Placed]:
    """Every change from ``old_document`` to ``new_document``, placed in the new file (the old
    one for what the new one no longer has). Both must have parsed; raises
    ``sides.NotComparable`` for a document that is not a config or a spec."""
    old, new = side_of(old_document, old_facts), side_of(new_document, new_facts)
    pairs = identities(old.tables, new.tables)
    changes = [
        *table_changes(old, new, pairs),
        *feature_changes(old, new, pairs),
        *topology_changes(old, new),
    ]
    return place(changes, old, new)


def place(changes: Iterable[Change], old: Side, new: Side) -> list[Placed]:
    changes = list(changes)
    for side, name in ((old, "old"), (new, "new")):
        if side.document.source_map is not None:
            # A lazy map of a large file finds the spans of these paths only.
            wanted = [c.path for c in changes if c.side == name]
            if side.compiled is not None:
                wanted = [side.compiled.spec_path(p) for p in wanted]
            side.document.source_map.locate(wanted)
    placed = []
    for change in changes:
        side = new if change.side == "new" else old
        path, position = side.place(change.path)
        placed.append(
            Placed(
                change.kind,
                change.table,
                path,
                change.old,
                change.new,
                change.message,
                side.file,
                position,
            )
        )
    return placed


def added(document: Document, since: str, facts: SpecFacts | None = None) -> list[Placed]:
    """A file that did not exist at revision ``since``: no checkpoint was written under it."""
    side = side_of(document, facts)
    return [
        Placed(
            "cosmetic",
            None,
            (),
            None,
            document.name,
            f"new since {since}: no checkpoint was written under this config "
            f"({plural(len(side.tables), 'table')})",
            document.name,
            _top(side),
        )
    ]


def removed(document: Document, since: str, facts: SpecFacts | None = None) -> list[Placed]:
    """A file that existed at ``since`` and is gone: its tables' state is orphaned."""
    side = side_of(document, facts)
    return [
        Placed(
            "orphaned-state",
            None,
            (),
            document.name,
            None,
            f"removed since {since}: the state of its {plural(len(side.tables), 'table')} in "
            "checkpoints written under it is restored by nothing",
            document.name,
            _top(side),
        )
    ]


def _top(side: Side) -> Position | None:
    return side.place(())[1]
