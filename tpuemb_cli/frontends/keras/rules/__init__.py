"""Rules for Keras-RS models: a `DistributedEmbedding` layer's configuration (a `.keras` archive's
config.json) that the layer accepts and then misreads, or that its backend's SparseCore
conversion refuses only on a TPU."""
