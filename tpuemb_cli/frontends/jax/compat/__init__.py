"""``tpuemb diff`` of jax-tpu-embedding's documents: their stacked layout (an EmbeddingSpecProto,
or a spec with a ``jax`` section), compared by the common comparison (compat/compare)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.layouts import Layout
from tpuemb_cli.load import Document

STACKED = "stacked"


def _stacked(document: Document, what: str, spec: bool = False) -> Layout:
    return Layout(
        STACKED,
        what,
        f"{document.name}: cannot compare: it is {what}, whose checkpoints Orbax writes; "
        "--against-checkpoint reads TensorFlow's (compare two layouts instead: "
        "tpuemb diff OLD NEW)",
        any_error_refuses=spec,  # a spec's every error; the library's own layout, its loading's
    )


def layout_jax(document: Document, facts: Any) -> Layout:
    return _stacked(document, "a stacked layout of jax-tpu-embedding (EmbeddingSpecProto)")


def layout_jax_spec(document: Document, facts: Any) -> Layout:
    return _stacked(document, "a spec with a `jax` section (jax-tpu-embedding's stacks)", spec=True)
