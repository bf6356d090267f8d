"""SparseCore rules: a spec with a `sparse_core` section, as TPUEmbeddingV2 would run it.

The config rules that do not judge what a SparseCore spec compiles to say so in the catalog
(`on_sparsecore=False`).
"""
