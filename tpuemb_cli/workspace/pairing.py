"""Which checkpoint layout each side of a ``tpuemb diff`` has, and whether two sides can be
compared: the one place a pair's kinds are decided.

Two documents compare only when their checkpoints are of one family, which each document's
front-end says (its compat module's ``layout_<kind>``): TensorFlow's TPUEmbedding (a config, or
a spec it compiles), TPUEmbeddingV2 on SparseCores, jax-tpu-embedding's stacked layout, a
Keras-RS model's saved weights. Any other pair -- two families, or a layout against a document
with none -- cannot be compared, whatever the two kinds are: a pair the comparison has no case
for is never passed as "no changes".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpuemb_cli.compat.layouts import CannotCompare, Layout
from tpuemb_cli.frontends import compat_of
from tpuemb_cli.model.schema import kind_of

__all__ = ["CannotCompare", "Layout", "family_of_pair", "layout_of"]

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.spec.facts import SpecFacts


def layout_of(document: Document, facts: SpecFacts | None) -> Layout:
    """The checkpoint layout of ``document`` (it must have parsed): its front-end's
    ``layout_<kind>``, or none."""
    message = document.message
    assert message is not None
    kind = kind_of(message)
    layout = compat_of(kind, "layout")
    if layout is not None:
        found: Layout = layout(document, facts)
        return found
    return Layout(None, f"a message of type {message.DESCRIPTOR.name}, with no checkpoint layout")


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
