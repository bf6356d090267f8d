"""`tpuemb explain --memory` on a JAX SparseCore ``EmbeddingSpecProto``: what jax-tpu-embedding
allocates on each SparseCore and each device -- every stack's variables and input buffers -- and,
with a TPU named, against a device's HBM.

The figures are ``spec.jax_memory``'s and the report, wording included,
``spec.jax_memory_record``'s; the one text and JSON renderers (views/memory_text,
views/memory_json) write it.
"""

from __future__ import annotations

from tpuemb_cli.frontends.jax.spec.memory import JaxMemory
from tpuemb_cli.frontends.jax.spec.memory_record import memory_report
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.views.memory_json import render_json
from tpuemb_cli.views.memory_text import render_text


def explain_jax_memory(name: str, memory: JaxMemory, chip: Chip | None) -> str:
    """The human report of an EmbeddingSpecProto's memory."""
    return render_text(memory_report(name, memory, chip))


def jax_memory_json(name: str, memory: JaxMemory, chip: Chip | None) -> str:
    """The same report as a JSON document (frontends/jax/spec/memory_record's report,
    views/memory_json)."""
    return render_json(memory_report(name, memory, chip))
