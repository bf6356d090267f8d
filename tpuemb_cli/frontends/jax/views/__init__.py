"""What ``explain --memory`` reports of a JAX EmbeddingSpecProto: jax-tpu-embedding's stacked
variables and input buffers on each SparseCore and, with a TPU named, each device."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.memory_report import MemoryReport
    from tpuemb_cli.spec.facts import SpecFacts


def explain_jax(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """A JAX SparseCore EmbeddingSpecProto: its stacks (views/spec)."""
    from tpuemb_cli.frontends.jax.views.spec import explain_jax_spec as stacks

    return stacks(document)


def memory_jax(document: Document, facts: SpecFacts | None, engine: Engine) -> MemoryReport:
    from tpuemb_cli.frontends.jax.spec.memory import model
    from tpuemb_cli.frontends.jax.spec.memory_record import memory_report

    tpu = engine.accelerator()
    chip = tpu.chip if tpu is not None else None
    per_device = chip.sparse_cores_per_device.value if chip else None
    memory = model(document.message, per_device, engine.settings.stats)
    return memory_report(document.name, memory, chip, tpu)
