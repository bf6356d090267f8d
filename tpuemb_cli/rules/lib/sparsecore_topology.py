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


def used_optimizers(spec: EmbeddingSpec) -> Iterator[tuple[FieldPath, Optimizer]]:
    """The optimizers tables train with: every table's own, and the spec's global one when a table
    has none of its own (TensorFlow checks ``table.optimizer`` after filling in the global one, so
    an optimizer no table uses is never looked at)."""
    if spec.HasField("optimizer") and any(not t.HasField("optimizer") for t in spec.tables):
        yield ("optimizer",), spec.optimizer
    for index, table in enumerate(spec.tables):
        if table.HasField("optimizer"):
            yield ("tables", index, "optimizer"), table.optimizer
