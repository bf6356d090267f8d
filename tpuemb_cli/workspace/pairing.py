"""Which checkpoint layout each side of a ``tpuemb diff`` has, and whether two sides can be
compared: the one place a pair's kinds are decided.

Two documents compare only when their checkpoints are of one family: TensorFlow's TPUEmbedding
(a config, or a spec it compiles), TPUEmbeddingV2 on SparseCores (a spec with a ``sparse_core``
section), jax-tpu-embedding's stacked layout (an ``EmbeddingSpecProto``, or a spec with a
``jax`` section) or a Keras-RS model's saved weights. Any other pair -- two families, or a
layout against a document with none -- cannot be compared, whatever the two kinds are: a pair
the comparison has no case for is never passed as "no changes".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tpuemb_cli.frontends import compat_of
from tpuemb_cli.model.schema import kind_of

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.spec.facts import SpecFacts

TENSORFLOW = "tensorflow"
SPARSECORE = "sparsecore"
STACKED = "stacked"
KERAS = "keras"


class Layout(NamedTuple):
    """A side's checkpoint family (None: it has no checkpoint layout) and what it is, in a
    user's words."""

    family: str | None
    what: str


def layout_of(document: Document, facts: SpecFacts | None) -> Layout:
    """The checkpoint layout of ``document`` (it must have parsed)."""
    message = document.message
    assert message is not None
    kind = kind_of(message)
    if kind == "config":
        return Layout(TENSORFLOW, "a TPUEmbeddingConfiguration (TensorFlow's TPUEmbedding)")
    if kind == "spec":
        if facts is not None and facts.sparsecore:
            return Layout(SPARSECORE, "a SparseCore spec (TensorFlow's TPUEmbeddingV2)")
        if message.HasField("jax"):
            return Layout(STACKED, "a spec with a `jax` section (jax-tpu-embedding's stacks)")
        return Layout(TENSORFLOW, "an embedding spec (TensorFlow's TPUEmbedding)")
    if kind == "jax":
        return Layout(STACKED, "a stacked layout of jax-tpu-embedding (EmbeddingSpecProto)")
    if kind == "keras":
        return Layout(KERAS, "a Keras-RS model")
    # A front-end's own kind: its compat's `layout_<kind>` (a family named for its kind).
    layout = compat_of(kind, "layout")
    if layout is not None:
        family, what = layout(document)
        return Layout(family, what)
    return Layout(None, f"a message of type {message.DESCRIPTOR.name}, with no checkpoint layout")


class CannotCompare(Exception):
    """A pair whose checkpoints have nothing in common to compare; the message says why, naming
    each side's kind."""


def family_of_pair(named: list[tuple[str, Layout]]) -> str:
    """The family both sides of a pair (``(file name, layout)`` each) are of; raises
    CannotCompare, naming each side's kind, when they are not of one."""
    (old_name, old), (new_name, new) = named
    if old.family is not None and old.family == new.family:
        return old.family
    if old.family is None or new.family is None:
        why = "only a config, a spec, a stacked layout or a Keras-RS model has one to compare"
    else:
        why = "their checkpoints have nothing in common to compare"
    names = old_name if old_name == new_name else f"{old_name} and {new_name}"
    raise CannotCompare(
        f"{names}: cannot compare: {old_name} is {old.what}, {new_name} is {new.what}; {why}"
    )
