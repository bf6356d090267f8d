"""Keras-RS's DistributedEmbedding: a model's layers (a `.keras` archive, its config.json, or
live objects), converted as its backend converts them for the SparseCore library underneath."""

from __future__ import annotations

from tpuemb_cli.frontends import FileFormat, FrontEnd, Option
from tpuemb_cli.model.message_type import MessageType

FRONT_END = FrontEnd(
    name="keras",
    title="Keras-RS",
    kinds=("keras",),
    engine="tpuemb_cli.frontends.keras.engine",
    views="tpuemb_cli.frontends.keras.views",
    compat="tpuemb_cli.frontends.keras.compat",
    # A Keras 3 model with Keras-RS DistributedEmbedding layers: a `.keras` archive's config.json,
    # or a model folder's. Recognised by its own check (load/config), not by field names:
    # config.json is Keras's format, which the KerasModel mirrors; never written.
    types=(
        MessageType(
            "KerasModel",
            "tpuemb_cli.pb.keras.keras_model_pb2",
            "keras",
            packages=("tpuemb.keras",),
            json_reader="tpuemb_cli.frontends.keras.load.config",
        ),
    ),
    # A `.keras` archive, sniffed before binary: a zip's bytes are not UTF-8 either, and
    # binary's sniff takes those.
    formats=(
        FileFormat(
            "keras",
            (".keras",),
            "tpuemb_cli.frontends.keras.load.codec",
            no_fixes="a .keras archive gets no fixes (Keras writes it: change the model's code)",
            writable=False,
            archive=True,
            text=False,
            before="binary",
        ),
    ),
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
