"""What ``explain --memory`` reports of a Keras-RS model: each DistributedEmbedding layer's
SparseCore tables, in the memory model of its backend's library (views/model), for the target the
settings settled (``settle_keras``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.memory_report import MemoryReport
    from tpuemb_cli.spec.facts import SpecFacts


def explain_keras(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """A Keras-RS model: each DistributedEmbedding layer's tables, placements and the library's
    stacks, for the model's ``target`` (views/model)."""
    from tpuemb_cli.frontends.keras.spec.plan import plan_model, topology_of
    from tpuemb_cli.frontends.keras.views.model import explain_keras as layers

    model: Any = document.message
    return layers(document.name, plan_model(model), topology_of(model))


def memory_keras(document: Document, facts: SpecFacts | None, engine: Engine) -> MemoryReport:
    from tpuemb_cli.frontends.keras.spec.plan import plan_model, topology_of
    from tpuemb_cli.frontends.keras.views.model import memory_report

    model: Any = document.message
    topology = topology_of(model)
    tpu = engine.accelerator(topology.accelerator)
    chip = tpu.chip if tpu is not None else None
    named = tpu.name if tpu is not None else ""
    return memory_report(
        document.name, plan_model(model), topology, chip, engine.settings.stats, named
    )
