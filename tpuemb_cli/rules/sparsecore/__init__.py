"""SparseCore rules: a spec with a `sparse_core` section, as TPUEmbeddingV2 would run it."""

# Config rules whose finding on the config a SparseCore spec compiles to says again what a
# SparseCore rule says better, or judges a setting by what TPUEmbedding on TensorCores does with
# it when TPUEmbeddingV2 never passes it on: TE201 (no optimizer algorithm) is TE664's `custom`
# optimizer; weight decay (TE304, TE305) is TE663's error whatever its value; clipping
# (TE301-TE303), non-lazy Adam without accumulation (TE204), FTRL's allow_zero_accumulator (TE209)
# and low-dimensional packing (TE306) are settings TE662 reports dropped.
SUPERSEDED_ON_SPARSECORE = frozenset(
    {"TE201", "TE204", "TE209", "TE301", "TE302", "TE303", "TE304", "TE305", "TE306"}
)
