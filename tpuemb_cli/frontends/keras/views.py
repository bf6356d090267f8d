"""What ``explain --memory`` reports of a Keras-RS model: each DistributedEmbedding layer's
SparseCore tables, in the memory model of its backend's library (views/keras), for the target
the settings settled (``settle_keras``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.memory_report import MemoryReport
    from tpuemb_cli.spec.facts import SpecFacts


def memory_keras(document: Document, facts: SpecFacts | None, engine: Engine) -> MemoryReport:
    from tpuemb_cli.spec.keras_plan import plan_model, topology_of
    from tpuemb_cli.views.keras import memory_report

    model: Any = document.message
    topology = topology_of(model)
    chip = engine.chip(topology.accelerator)
    return memory_report(document.name, plan_model(model), topology, chip)
