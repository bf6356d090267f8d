"""What the SparseCore rules read from a spec: whether it is a SparseCore spec, its SparseCores
per chip and replicas as TensorFlow counts them, each feature's samples, the optimizers its tables
train with."""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, Optimizer
from tpuemb_cli.spec import sparsecore
from tpuemb_cli.spec.sparsecore import samples

__all__ = [
    "is_sparsecore",
    "laid_out",
    "replicas",
    "samples",
    "sparse_cores_per_chip",
    "used_optimizers",
]


def is_sparsecore(spec: EmbeddingSpec) -> bool:
    """A spec with a `sparse_core` section trains with TPUEmbeddingV2 on SparseCores."""
    return spec.HasField("sparse_core")


def sparse_cores_per_chip(spec: EmbeddingSpec) -> int | None:
    """``topology.sparse_cores_per_chip``, else the chip table's count for
    ``topology.accelerator``; None when neither is known (the rules that need it say nothing)."""
    try:
        return sparsecore.sparse_cores_per_chip(spec)
    except sparsecore.SparseCoreError:
        return None


def replicas(spec: EmbeddingSpec) -> int | None:
    """TensorFlow's ``strategy.num_replicas_in_sync`` for the spec's topology: its cores over the
    cores each replica spans; None when the topology does not say."""
    try:
        return sparsecore.num_partitions(spec)
    except sparsecore.SparseCoreError:
        return None


def laid_out(spec: EmbeddingSpec) -> sparsecore.Plan | None:
    """The SparseCore layout of a SparseCore spec (``spec.sparsecore.plan``), or None when it is
    not one or cannot be laid out (``tpuemb compile --target sparsecore`` says why; other rules
    say where). Planned once for the rules that read it: the last spec's plan is kept."""
    global _last
    if not is_sparsecore(spec):
        return None
    if _last is not None and _last[0] is spec:
        return _last[1]
    try:
        found: sparsecore.Plan | None = sparsecore.plan(spec)
    except sparsecore.SparseCoreError:
        found = None
    _last = (spec, found)
    return found


_last: tuple[EmbeddingSpec, sparsecore.Plan | None] | None = None


def used_optimizers(spec: EmbeddingSpec) -> Iterator[tuple[FieldPath, Optimizer]]:
    """The optimizers tables train with: every table's own, and the spec's global one when a table
    has none of its own (TensorFlow checks ``table.optimizer`` after filling in the global one, so
    an optimizer no table uses is never looked at)."""
    if spec.HasField("optimizer") and any(not t.HasField("optimizer") for t in spec.tables):
        yield ("optimizer",), spec.optimizer
    for index, table in enumerate(spec.tables):
        if table.HasField("optimizer"):
            yield ("tables", index, "optimizer"), table.optimizer
