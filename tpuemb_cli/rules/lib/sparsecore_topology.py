"""What the SparseCore rules read from a spec: whether it is a SparseCore spec, its SparseCores
per chip and replicas as TensorFlow counts them, each feature's samples, the optimizers its tables
train with."""

from __future__ import annotations

from collections.abc import Iterator
from math import prod

from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, Feature, Optimizer


def is_sparsecore(spec: EmbeddingSpec) -> bool:
    """A spec with a `sparse_core` section trains with TPUEmbeddingV2 on SparseCores."""
    return spec.HasField("sparse_core")


def sparse_cores_per_chip(spec: EmbeddingSpec) -> int | None:
    """``topology.sparse_cores_per_chip``, else the chip table's count for
    ``topology.accelerator``; None when neither is known (the rules that need it say nothing)."""
    topology = spec.topology
    if topology.HasField("sparse_cores_per_chip"):
        return topology.sparse_cores_per_chip if topology.sparse_cores_per_chip > 0 else None
    if not topology.accelerator:
        return None
    from tpuemb_cli.model import chips

    chip = chips.find(topology.accelerator)
    return chip.sparse_cores.value if chip is not None else None


def replicas(spec: EmbeddingSpec) -> int | None:
    """TensorFlow's ``strategy.num_replicas_in_sync`` for the spec's topology: its cores over the
    cores each replica spans; None when the topology does not say."""
    topology = spec.topology
    cores = topology.num_hosts * topology.cores_per_host
    per_replica = topology.num_cores_per_replica or 1
    if cores <= 0 or per_replica <= 0 or cores % per_replica:
        return None
    return cores // per_replica


def samples(feature: Feature) -> int:
    """A feature's samples on a replica: the product of its output_shape (TensorFlow's
    ``functools.reduce(operator.mul, feature.output_shape)``)."""
    return prod(feature.output_shape)


def used_optimizers(spec: EmbeddingSpec) -> Iterator[tuple[FieldPath, Optimizer]]:
    """The optimizers tables train with: every table's own, and the spec's global one when a table
    has none of its own (TensorFlow checks ``table.optimizer`` after filling in the global one, so
    an optimizer no table uses is never looked at)."""
    if spec.HasField("optimizer") and any(not t.HasField("optimizer") for t in spec.tables):
        yield ("optimizer",), spec.optimizer
    for index, table in enumerate(spec.tables):
        if table.HasField("optimizer"):
            yield ("tables", index, "optimizer"), table.optimizer
