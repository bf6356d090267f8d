"""JAX's SparseCore library (jax-tpu-embedding): its EmbeddingSpecProto, and EmbeddingSpecs with
a ``jax`` section (its FeatureSpecs, stacked as the library stacks them)."""

from __future__ import annotations

from tpuemb_cli.frontends import FrontEnd

FRONT_END = FrontEnd(
    name="jax",
    title="JAX",
    kinds=("jax", "jax_spec"),
    engine="tpuemb_cli.frontends.jax.engine",
    views="tpuemb_cli.frontends.jax.views",
    compat="tpuemb_cli.frontends.jax.compat",
)
