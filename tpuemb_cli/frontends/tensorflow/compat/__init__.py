"""``tpuemb diff`` of TensorFlow's documents: the checkpoint layout of a config and of a spec
(TPUEmbedding's tables, or TPUEmbeddingV2's stacks on SparseCores); a spec with a ``jax``
section is laid out by the front-end that owns that kind. Configs and specs compare by the
common comparison (compat/compare), SparseCore specs by their stacks (``changes``)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.layouts import Layout
from tpuemb_cli.frontends import compat_of
from tpuemb_cli.load import Document

TENSORFLOW = "tensorflow"
SPARSECORE = "sparsecore"
# What a spec on one side only (``--against``) is new or removed since: the comparison of a
# family is handed the two sides, not the revision.
SINCE = "the revision"


def layout_config(document: Document, facts: Any) -> Layout:
    return Layout(TENSORFLOW, "a TPUEmbeddingConfiguration (TensorFlow's TPUEmbedding)")


def layout_spec(document: Document, facts: Any) -> Layout:
    message: Any = document.message
    if facts is not None and facts.sparsecore:
        return Layout(
            SPARSECORE, "a SparseCore spec (TensorFlow's TPUEmbeddingV2)", any_error_refuses=True
        )
    if message.HasField("jax"):
        stacked = compat_of("jax_spec", "layout")  # the kind's own front-end says
        assert stacked is not None
        found: Layout = stacked(document, facts)
        return found
    return Layout(
        TENSORFLOW, "an embedding spec (TensorFlow's TPUEmbedding)", any_error_refuses=True
    )


def changes_sparsecore(
    name: str, old: Document | None, new: Document | None, engine: Any
) -> tuple[Document, list[Any]]:
    """Two SparseCore specs, by what TPUEmbeddingV2's checkpoint of the old one holds and what
    restoring it under the new one does (``changes``); a spec on one side only (``--against``)
    is new or removed."""
    from tpuemb_cli.compat.compare import added, place, removed
    from tpuemb_cli.frontends.tensorflow.compat.changes import sparsecore_changes
    from tpuemb_cli.frontends.tensorflow.compat.sides import spec_side

    if new is None:
        assert old is not None
        # For a removed file, its configuration's entries acknowledge (workspace/diffing).
        return Document(name, "", "", None, None), removed(old, SINCE)
    if old is None:
        return new, added(new, SINCE)
    if old.message == new.message:
        return new, []  # one spec lays out one checkpoint: nothing changed
    before, after = spec_side(old, None), spec_side(new, None)
    return new, place(sparsecore_changes(before, after), before, after)


def checkpoint_sparsecore(
    document: Document, checkpoint: Any, prefix: str | None, facts: Any
) -> list[Any]:
    """A SparseCore spec against a TPUEmbeddingV2 checkpoint on disk: the checkpoint's stacked
    variables and the layouts it saved, as the old side."""
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.frontends.tensorflow.compat.changes import sparsecore_changes
    from tpuemb_cli.frontends.tensorflow.compat.sides import checkpoint_side, spec_side

    new = spec_side(document, facts)
    old = checkpoint_side(document, checkpoint, prefix)
    return place(sparsecore_changes(old, new), new, new)


def against_orbax_spec(document: Document, facts: Any, checkpoint: Any, engine: Any) -> list[Any]:
    """A spec against an Orbax checkpoint: one with a ``jax`` section is compared by the
    front-end that owns that kind; TensorFlow's own checkpoints are no Orbax checkpoints."""
    from tpuemb_cli.compat.layouts import CannotCompare

    message: Any = document.message
    if message.HasField("jax") and not (facts is not None and facts.sparsecore):
        compare = compat_of("jax_spec", "against_orbax")
        assert compare is not None
        found: list[Any] = compare(document, facts, checkpoint, engine)
        return found
    raise CannotCompare(
        f"{document.name}: cannot compare: it is {layout_spec(document, facts).what}, whose "
        f"checkpoints TensorFlow writes; {checkpoint.path} is {checkpoint.what}"
    )
