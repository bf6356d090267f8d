"""``tpuemb compile --target sparsecore``: a linted spec to its SparseCoreTableLayouts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpuemb_cli.cli.common import Streams, error

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.pb.layouts import SparseCoreTableLayouts


def layouts(
    document: Document, order: str, hash_seed: int, none_hash: int | None, streams: Streams
) -> SparseCoreTableLayouts | None:
    """The layouts in ``order`` (checkpoint or stacker), or None after saying on stderr why the
    spec cannot be laid out."""
    from tpuemb_cli.model.pyhash import NONE_HASH_312, HashContext
    from tpuemb_cli.spec.sparsecore import SparseCoreError, plan

    context = HashContext(hash_seed, NONE_HASH_312 if none_hash is None else none_hash)
    try:
        found = plan(document.message, context)  # type: ignore[arg-type]
    except SparseCoreError as problem:
        error(streams, f"{document.name}: not compiled: {problem}")
        return None
    if order == "checkpoint":
        return found.checkpoint_layouts
    if not found.reproducible_order:
        error(
            streams,
            f"{document.name}: note: a learning-rate schedule is a function TensorFlow hashes by "
            "its address; the order of the stacks of its width may differ from TensorFlow's",
        )
    return found.layouts
