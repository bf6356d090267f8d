"""SparseCore rules: a spec with a `sparse_core` section, as TPUEmbeddingV2 would run it."""

# Config rules whose finding on the config a SparseCore spec compiles to says again what a
# SparseCore rule says better: TE201 (no optimizer algorithm) is TE664's `custom` optimizer.
SUPERSEDED_ON_SPARSECORE = frozenset({"TE201"})
