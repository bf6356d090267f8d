"""Rules for JAX SparseCore's stacked layout: a jax-tpu-embedding EmbeddingSpecProto that the
library cannot have written, or that its training, lookup or checkpoint conversion misreads."""
