"""``tpuemb diff`` of TensorFlow's documents: the checkpoint layout of a config and of a spec
(TPUEmbedding's tables, or TPUEmbeddingV2's stacks on SparseCores, which diff does not compare
yet); a spec with a ``jax`` section is laid out by the front-end that owns that kind. Configs
and specs compare by the common comparison (compat/compare)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.layouts import CannotCompare, Layout, NotComparedYet
from tpuemb_cli.frontends import compat_of
from tpuemb_cli.load import Document

TENSORFLOW = "tensorflow"
SPARSECORE = "sparsecore"

SPARSECORE_NOT_YET = (
    "a SparseCore spec: TPUEmbeddingV2 checkpoints hold stacks of tables, which diff does not "
    "compare yet"
)


def layout_config(document: Document, facts: Any) -> Layout:
    return Layout(TENSORFLOW, "a TPUEmbeddingConfiguration (TensorFlow's TPUEmbedding)")


def layout_spec(document: Document, facts: Any) -> Layout:
    message: Any = document.message
    if facts is not None and facts.sparsecore:
        return Layout(
            SPARSECORE,
            "a SparseCore spec (TensorFlow's TPUEmbeddingV2)",
            f"{document.name}: cannot compare: {SPARSECORE_NOT_YET}",
            any_error_refuses=True,
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
    """Two SparseCore specs: the same spec lays out the same checkpoint; anything else is not
    compared yet."""
    present = [d for d in (old, new) if d is not None]
    if len(present) == 1:
        # Added or removed since the revision: skipped, and stderr says so.
        raise NotComparedYet(SPARSECORE_NOT_YET)
    if present[0].message == present[1].message:
        # One spec on both sides lays out one checkpoint: nothing changed.
        return present[1], []
    # TPUEmbeddingV2 saves each stack of tables as one variable named after the stack
    # (docs/sparsecore.md): the per-table comparison would call a restored stack fresh,
    # and miss a stack renamed by a table added to or taken from it. A gate must not
    # take a pair it cannot judge for a pass: cannot compare, exit 2.
    raise CannotCompare(f"{name}: cannot compare: {SPARSECORE_NOT_YET}")


def against_orbax_spec(document: Document, facts: Any, checkpoint: Any, engine: Any) -> list[Any]:
    """A spec against an Orbax checkpoint: one with a ``jax`` section is compared by the
    front-end that owns that kind; TensorFlow's own checkpoints are no Orbax checkpoints."""
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
