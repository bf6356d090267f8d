"""``tpuemb diff`` of TorchRec specs: what a change of the spec does to a PyTorch distributed
checkpoint its fused collection saved (``changes_torchrec``: two specs,
frontends/torchrec/compat/changes), and what a checkpoint on disk holds against what the spec's
collection would load (``against_dcp_torchrec``: frontends/torchrec/compat/dcp)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.compat.layouts import Layout
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.findings import Position

TORCHREC = "torchrec"


def layout_torchrec(document: Document, facts: Any) -> Layout:
    return Layout(
        TORCHREC,
        "a TorchRec spec",
        against_checkpoint=(
            f"{document.name}: cannot compare: a TorchRec spec is saved in a PyTorch distributed "
            "checkpoint (name its folder), not a TensorFlow one"
        ),
        # A spec the library refuses, or whose rules find errors, would be compared with
        # stacks torchrec does not make.
        any_error_refuses=True,
    )


class TorchRecSide(Record):
    """A TorchRec spec a change is placed in, at its field paths."""

    document: Any

    @property
    def file(self) -> str:
        return str(self.document.name)

    def file_path(self, path: FieldPath) -> FieldPath:
        return path

    def place(self, path: FieldPath) -> tuple[FieldPath, Position | None]:
        located: tuple[FieldPath, Position | None] = self.document.located(path)
        return located


def changes_torchrec(
    name: str, old: Document | None, new: Document | None, engine: Any
) -> tuple[Document, list[Any]]:
    """Two TorchRec specs: what loading a checkpoint the old one's collection saved into the new
    one's does. A spec on one side only (``--against``): nothing to compare but that it is
    there."""
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.compat.kinds import Change
    from tpuemb_cli.frontends.torchrec.compat.changes import spec_changes
    from tpuemb_cli.frontends.torchrec.compat.state import collection_state

    if old is None or new is None:
        (shown,) = [d for d in (old, new) if d is not None]
        side = TorchRecSide(shown)
        if new is not None:
            return new, []
        gone = Change(
            "orphaned-state",
            None,
            (),
            shown.name,
            None,
            f"the TorchRec spec {shown.name} is removed: a checkpoint its collection saved is "
            "read by nothing",
            side="old",
        )
        return shown, place([gone], side, side)
    before = collection_state(old.name, old.message)
    after = collection_state(new.name, new.message)
    return new, place(list(spec_changes(before, after)), TorchRecSide(old), TorchRecSide(new))


def against_dcp_torchrec(document: Document, facts: Any, checkpoint: Any, engine: Any) -> list[Any]:
    """A TorchRec spec against a PyTorch distributed checkpoint's ``.metadata``."""
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.frontends.torchrec.compat.dcp import compare_dcp
    from tpuemb_cli.frontends.torchrec.compat.state import collection_state

    state = collection_state(document.name, document.message)
    side = TorchRecSide(document)
    return place(list(compare_dcp(document.name, state, checkpoint)), side, side)
