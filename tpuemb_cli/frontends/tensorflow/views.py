"""What ``explain --memory`` reports of TensorFlow's documents: a config's tables on each
TensorCore; a spec's, as what it compiles to -- the TensorCore config, or with a ``sparse_core``
section TPUEmbeddingV2's stacked tables and slot variables on each SparseCore and chip.

Each ``memory_<kind>`` is called with the document, a spec's facts and the engine of its
settings (the chip: ``--tpu``, the settings' ``tpu``, a spec's accelerator)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.memory_report import MemoryReport
    from tpuemb_cli.spec.facts import SpecFacts


# The last config modelled and its model: the sweep asks one config's report of every slice, and
# the TensorCore model does not depend on the TPU. The config is held, so its id is not reused.
_LAST: list[Any] = [None, None]


def _model(config: Any) -> Any:
    from tpuemb_cli.model.memory import model

    if _LAST[0] is not config:
        _LAST[:] = [config, model(config)]
    return _LAST[1]


def memory_config(document: Document, facts: SpecFacts | None, engine: Engine) -> MemoryReport:
    """A config's tables on each TensorCore."""
    from tpuemb_cli.model.memory_record import memory_report

    config: Any = document.message  # a TPUEmbeddingConfiguration (its kind)
    tpu = engine.accelerator()
    chip = tpu.chip if tpu is not None else None
    return memory_report(document.name, config, _model(config), chip, tpu, "")


def explain_refusal_spec(document: Document, facts: SpecFacts | None) -> str | None:
    """Why ``explain`` does not show a spec: one written for jax-tpu-embedding (a ``jax``
    section), whose library builds what TensorFlow does not."""
    from tpuemb_cli.frontends.tensorflow.spec import jax_refusal

    return jax_refusal(facts.spec) if facts is not None else None


def memory_spec(document: Document, facts: SpecFacts | None, engine: Engine) -> MemoryReport:
    """A spec's: what it compiles to (the workspace's facts, for every spec)."""
    assert facts is not None
    if facts.sparsecore:  # TPUEmbeddingV2: the SparseCore model
        from tpuemb_cli.spec.sparsecore_memory_record import memory_report as sparsecore

        tpu = engine.accelerator(facts.spec.topology.accelerator)
        chip = tpu.chip if tpu is not None else None
        return sparsecore(document.name, facts.layout, facts.sparsecore_memory, chip, tpu)
    from tpuemb_cli.model.memory_record import memory_report

    config = facts.compiled.config
    tpu = engine.accelerator(facts.spec.topology.accelerator)
    chip = tpu.chip if tpu is not None else None
    header = " (compiled as TensorFlow would)"
    return memory_report(document.name, config, _model(config), chip, tpu, header)
