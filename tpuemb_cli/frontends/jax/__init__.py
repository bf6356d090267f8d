"""JAX's SparseCore library (jax-tpu-embedding): its EmbeddingSpecProto, and EmbeddingSpecs with
a ``jax`` section (its FeatureSpecs, stacked as the library stacks them)."""

from __future__ import annotations

from tpuemb_cli.frontends import FrontEnd
from tpuemb_cli.model.message_type import MessageType

FRONT_END = FrontEnd(
    name="jax",
    title="JAX",
    kinds=("jax", "jax_spec"),
    engine="tpuemb_cli.frontends.jax.engine",
    views="tpuemb_cli.frontends.jax.views",
    compat="tpuemb_cli.frontends.jax.compat",
    types=(
        # JAX SparseCore's stacked layout (jax-tpu-embedding's `create_proto_from_feature_specs`):
        # the JAX rules run on it. Its bytes open like a config's (a stack's name, vocabulary and
        # dimension are a table descriptor's first fields), but its tables (field 10) are unknown to
        # a config, so it is sniffed only when it reads as no config.
        MessageType(
            "EmbeddingSpecProto",
            "tpuemb_cli.pb.jax.embedding_spec_pb2",
            "jax",
            packages=("tpuemb.jax", "third_party.py.jax_tpu_embedding.sparsecore_lib_proto"),
            signature=frozenset({"stacked_table_specs"}),
            text_order=5,
            binary_order=5,
            mapping_order=4,
            text_leads=("stacked_table_specs",),
            binary_fields=("stacked_table_specs", "stack_name", "table_specs"),
            binary_missing="no `stacked_table_specs` with a stack_name and table_specs",
            binary_sniff="jax_spec_bytes",
        ),
    ),
)
