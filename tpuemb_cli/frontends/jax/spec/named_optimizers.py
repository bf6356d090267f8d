"""A compiled stacked layout with each table's optimizer named, as 0.2.0's ``EmbeddingSpecProto``
records it: what the JAX memory model counts slot variables by, and what names the slot arrays
of a checkpoint (``tpuemb diff``). 0.1.0's proto records no optimizer; a spec says each table's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpuemb_cli.model import optimizers as optimizer_table

if TYPE_CHECKING:
    from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec


def with_optimizers(compiled: EmbeddingSpecProto, spec: EmbeddingSpec) -> EmbeddingSpecProto:
    """A copy of ``compiled`` whose tables name their optimizer and learning rate, from
    ``spec``, as 0.2.0's proto records them: 0.1.0's records none, and the JAX memory model
    counts each stack's slot variables by it, and a checkpoint's slot arrays are named by it (a
    class the conversion refuses is CUSTOM: not counted, and said so)."""
    from tpuemb_cli.pb.jax.embedding_spec_pb2 import OptimizerSpecProto

    copy = type(compiled)()
    copy.CopyFrom(compiled)
    optimizers = {table.name: table.jax.optimizer for table in spec.tables}
    for stack in copy.stacked_table_specs:
        for table in stack.table_specs:
            optimizer = optimizers.get(table.table_name)
            # The type 0.2.0's proto names the class by (the optimizer table's JAX column).
            row = optimizer_table.jax_class(optimizer.type) if optimizer else None
            kind = row.proto_type if row else optimizer_table.JAX_CUSTOM
            table.optimizer.type = getattr(OptimizerSpecProto, kind)
            rate = optimizer.learning_rate if optimizer else None
            if rate is not None and rate.HasField("schedule"):
                table.optimizer.learning_rate_tag = rate.schedule
            elif rate is not None and rate.HasField("constant"):
                table.optimizer.learning_rate = rate.constant
    return copy
