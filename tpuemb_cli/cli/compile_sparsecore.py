"""``tpuemb compile --target sparsecore``: a linted spec to its SparseCoreTableLayouts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpuemb_cli.cli.common import Streams, error

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.pb.layouts import SparseCoreTableLayouts
    from tpuemb_cli.spec.facts import SpecFacts


def layouts(
    document: Document,
    facts: SpecFacts,
    order: str,
    hash_seed: int,
    none_hash: int | None,
    streams: Streams,
) -> SparseCoreTableLayouts | None:
    """The layouts in ``order`` (checkpoint or stacker), or None after saying on stderr why the
    spec cannot be laid out. The lint laid the spec out for its rules (``facts``): that layout is
    used again when the hash seed is the same."""
    from tpuemb_cli.model.pyhash import NONE_HASH_312, HashContext
    from tpuemb_cli.spec.sparsecore import NOT_SPARSECORE, Plan

    context = HashContext(hash_seed, NONE_HASH_312 if none_hash is None else none_hash)
    found = facts.layout_for(context)
    if not isinstance(found, Plan):
        why = NOT_SPARSECORE if found is None else found
        error(streams, f"{document.name}: not compiled: {why}")
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
