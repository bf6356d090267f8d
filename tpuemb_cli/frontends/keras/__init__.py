"""Keras-RS's DistributedEmbedding: a model's layers (a `.keras` archive, its config.json, or
live objects), converted as its backend converts them for the SparseCore library underneath."""

from __future__ import annotations

from tpuemb_cli.frontends import FrontEnd, Option

FRONT_END = FrontEnd(
    name="keras",
    title="Keras-RS",
    kinds=("keras",),
    engine="tpuemb_cli.frontends.keras.engine",
    views="tpuemb_cli.frontends.keras.views",
    compat="tpuemb_cli.frontends.keras.compat",
    options=(
        Option(
            "keras-backend",
            ("jax", "tensorflow"),
            "jax",
            "The Keras backend a Keras-RS model's DistributedEmbedding layers are converted for "
            "(the rules of its SparseCore library run on them).",
        ),
    ),
)
