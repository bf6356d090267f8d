"""``tpuemb diff`` of jax-tpu-embedding's documents: their stacked layout (an EmbeddingSpecProto,
or a spec with a ``jax`` section), compared with another by the common comparison
(compat/compare), and with an Orbax checkpoint on disk (``against_orbax_<kind>``,
frontends/jax/compat/orbax)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.layouts import Layout
from tpuemb_cli.load import Document

STACKED = "stacked"


def _stacked(document: Document, what: str, spec: bool = False) -> Layout:
    return Layout(
        STACKED,
        what,
        f"{document.name}: cannot compare: it is {what}, whose checkpoints Orbax writes, not "
        "TensorFlow: name an Orbax step directory or CheckpointManager root (or compare two "
        "layouts: tpuemb diff OLD NEW)",
        any_error_refuses=spec,  # a spec's every error; the library's own layout, its loading's
    )


def layout_jax(document: Document, facts: Any) -> Layout:
    return _stacked(document, "a stacked layout of jax-tpu-embedding (EmbeddingSpecProto)")


def layout_jax_spec(document: Document, facts: Any) -> Layout:
    return _stacked(document, "a spec with a `jax` section (jax-tpu-embedding's stacks)", spec=True)


def against_orbax_jax(document: Document, facts: Any, checkpoint: Any, engine: Any) -> list[Any]:
    """An EmbeddingSpecProto against an Orbax checkpoint on disk."""
    from tpuemb_cli.frontends.jax.compat.entries import jax_side

    return _against_orbax(document, jax_side(document, document.message), checkpoint)


def against_orbax_jax_spec(
    document: Document, facts: Any, checkpoint: Any, engine: Any
) -> list[Any]:
    """A spec with a ``jax`` section, through the layout ``compile --target jax`` makes of it."""
    from tpuemb_cli.compat.layouts import CannotCompare
    from tpuemb_cli.compat.sides import NotComparable
    from tpuemb_cli.frontends.jax.compat import specs

    try:
        side = specs.spec_side(document, document.message, specs.stacked_layout_of_spec)
    except NotComparable as refused:
        raise CannotCompare(f"{document.name}: cannot compare: {refused}") from None
    return _against_orbax(document, side, checkpoint)


def _against_orbax(document: Document, side: Any, checkpoint: Any) -> list[Any]:
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.frontends.jax.compat.orbax import compare_orbax, saved_layout

    saved, unsaved = saved_layout(checkpoint, _load_saved)
    return place(compare_orbax(document, side, checkpoint, saved, unsaved), side, side)


def _load_saved(name: str, text: str) -> Document | None:
    """The EmbeddingSpecProto a checkpoint's proto item holds (text format), or None when it
    is not one."""
    from tpuemb_cli import load as loader

    document = loader.load_bytes(text.encode("utf-8"), name, "text", "EmbeddingSpecProto")
    # Any problem -- an unknown field, a value out of range -- makes it no layout to trust:
    # another message (the job's own config) parses as an empty EmbeddingSpecProto otherwise.
    if document.message is None or document.problems:
        return None
    return document


def stacks_against_orbax_jax(
    document: Document, proto: Any, to_file: Any, checkpoint: Any, owner: str | None = None
) -> list[Any]:
    """The stacks of ``proto`` (an EmbeddingSpecProto another front-end laid out: a Keras-RS
    layer's on the JAX backend) against an Orbax checkpoint, placed in ``document`` by
    ``to_file``; no saved layout is read (Keras-RS saves none). ``owner``: the key the stacks'
    dict must sit under (the Keras layer's name: the restore's key path holds it)."""
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.frontends.jax.compat.entries import jax_side
    from tpuemb_cli.frontends.jax.compat.orbax import compare_orbax

    side = jax_side(document, proto, to_file)
    return place(compare_orbax(document, side, checkpoint, None, owner=owner), side, side)
