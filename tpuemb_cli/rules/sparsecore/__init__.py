"""SparseCore rules: a spec with a `sparse_core` section, as TPUEmbeddingV2 would run it."""
