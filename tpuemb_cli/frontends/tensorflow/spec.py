"""What TensorFlow's side of tpuemb's spec refuses to show: a spec written for another library."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec

__all__ = ["jax_refusal"]


def jax_refusal(spec: EmbeddingSpec) -> str | None:
    """Why ``compile`` (but for ``--target jax``) and ``explain`` do not take a spec written for
    jax-tpu-embedding (one with a ``jax`` section, as ``spec_from_jax`` writes): what they show
    is what TensorFlow would build, and the library builds something else (its own stacking,
    padding and optimizers)."""
    if not spec.HasField("jax"):
        return None
    return (
        "a spec for jax-tpu-embedding (it has a `jax` section): this shows what TensorFlow "
        "would build, not what the JAX library builds; `tpuemb compile --target jax` writes the "
        "library's EmbeddingSpecProto, which `tpuemb explain` and `explain --memory` take"
    )
