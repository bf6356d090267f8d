"""The comparison of two loaded documents (a config or a spec each), and files that exist on
one side only (``tpuemb diff --against``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from tpuemb_cli.compat.features import feature_changes
from tpuemb_cli.compat.kinds import Change, Placed
from tpuemb_cli.compat.matching import identities
from tpuemb_cli.compat.sides import NotComparable, side_of
from tpuemb_cli.compat.tables import table_changes
from tpuemb_cli.compat.topology import topology_changes
from tpuemb_cli.frontends.jax.compat.changes import jax_changes
from tpuemb_cli.frontends.jax.compat.entries import JaxSide, jax_side
from tpuemb_cli.load import Document
from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.schema import kind_of
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
    ``sides.NotComparable`` for a document that is not a config or a spec, or for a stacked
    layout (jax-tpu-embedding's) against a config or spec of TensorFlow's."""
    stacked = [
        _stacked_side(d, f) for d, f in ((old_document, old_facts), (new_document, new_facts))
    ]
    if stacked[0] is not None and stacked[1] is not None:
        return place(jax_changes(stacked[0], stacked[1]), stacked[0], stacked[1])
    if stacked[0] is not None or stacked[1] is not None:
        which = old_document if stacked[0] is not None else new_document
        other = new_document if stacked[0] is not None else old_document
        raise NotComparable(
            f"{which.name} holds jax-tpu-embedding's stacked layout and {other.name} "
            "TensorFlow's: their checkpoints have nothing in common to compare"
        )
    old, new = side_of(old_document, old_facts), side_of(new_document, new_facts)
    pairs = identities(old.tables, new.tables)
    changes = [
        *table_changes(old, new, pairs),
        *feature_changes(old, new, pairs),
        *topology_changes(old, new),
    ]
    return place(changes, old, new)


class Placing(Protocol):
    """A side changes are placed in: a config or spec (``sides.Side``), or a stacked layout
    (``jax_entries.JaxSide``)."""

    @property
    def document(self) -> Document: ...

    @property
    def file(self) -> str: ...

    def file_path(self, path: FieldPath) -> FieldPath: ...

    def place(self, path: FieldPath) -> tuple[FieldPath, Position | None]: ...


def place(changes: Iterable[Change], old: Placing, new: Placing) -> list[Placed]:
    changes = list(changes)
    for side, name in ((old, "old"), (new, "new")):
        if side.document.source_map is not None:
            # A lazy map of a large file finds the spans of these paths only.
            side.document.source_map.locate(
                [side.file_path(c.path) for c in changes if c.side == name]
            )
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
                change.help,
            )
        )
    return placed


def _stacked_side(document: Document, facts: SpecFacts | None) -> JaxSide | None:
    """``document``'s stacked layout: an EmbeddingSpecProto, or a spec with a ``jax`` section
    (``jax_specs``); None for a TensorFlow config or spec."""
    message = document.message
    if message is None:
        return None
    kind = kind_of(message)
    if kind == "jax":
        return jax_side(document, message)
    if kind == "spec" and message.HasField("jax"):
        from tpuemb_cli.frontends.jax.compat import specs as jax_specs

        return jax_specs.spec_side(document, message, jax_specs.stacked_layout_of_spec)
    return None


def _side(document: Document, facts: SpecFacts | None) -> tuple[Placing, int]:
    """The side ``document`` is and its number of tables, for a file on one side only."""
    stacked = _stacked_side(document, facts)
    if stacked is not None:
        return stacked, sum(len(stack.tables) for stack in stacked.stacks)
    side = side_of(document, facts)
    return side, len(side.tables)


def added(document: Document, since: str, facts: SpecFacts | None = None) -> list[Placed]:
    """A file that did not exist at revision ``since``: no checkpoint was written under it."""
    side, tables = _side(document, facts)
    return [
        Placed(
            "cosmetic",
            None,
            (),
            None,
            document.name,
            f"new since {since}: no checkpoint was written under this config "
            f"({plural(tables, 'table')})",
            document.name,
            _top(side),
        )
    ]


def removed(document: Document, since: str, facts: SpecFacts | None = None) -> list[Placed]:
    """A file that existed at ``since`` and is gone: its tables' state is orphaned."""
    side, tables = _side(document, facts)
    return [
        Placed(
            "orphaned-state",
            None,
            (),
            document.name,
            None,
            f"removed since {since}: the state of its {plural(tables, 'table')} in "
            "checkpoints written under it is restored by nothing",
            document.name,
            _top(side),
        )
    ]


def _top(side: Placing) -> Position | None:
    return side.place(())[1]
