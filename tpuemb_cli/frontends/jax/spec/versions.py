"""The jax-tpu-embedding releases whose ``EmbeddingSpecProto`` `tpuemb compile --target jax`
writes (`jax_compiler`), the first the default: 0.1.0, and 0.2.0, which records each stack's
activation limit and each table's combiner and optimizer as well. Its own module so that the
command line lists them without importing the compiler."""

from __future__ import annotations

VERSIONS = ("0.1.0", "0.2.0")
DEFAULT = VERSIONS[0]
