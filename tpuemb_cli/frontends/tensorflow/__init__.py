"""TensorFlow's TPU embedding: TPUEmbeddingConfiguration and OptimizationParameters (text,
JSON, YAML, binary), tpuemb's EmbeddingSpec compiled as TensorFlow compiles it (TPUEmbedding on
TensorCores, TPUEmbeddingV2 on SparseCores), GraphDefs and SavedModels that carry configs, and
TPUEmbeddingV2's SparseCore table layouts."""

from __future__ import annotations

from tpuemb_cli.frontends import FrontEnd

FRONT_END = FrontEnd(
    name="tensorflow",
    title="TensorFlow",
    kinds=("config", "optimizer", "spec", "graph", "saved_model", "layouts"),
    engine="tpuemb_cli.frontends.tensorflow.engine",
    views="tpuemb_cli.frontends.tensorflow.views",
    compat="tpuemb_cli.frontends.tensorflow.compat",
)
