"""`tpuemb explain --memory` of a TensorFlow config: what each table takes on a core, and whether
it fits a chip. The figures are ``model.memory``'s (TensorFlow's own shapes) and the report,
wording included, ``model.memory_record``'s; the one text and JSON renderers
(views/memory_text, views/memory_json) write it. Kept as the TensorFlow view's entry points."""

from __future__ import annotations

from tpuemb_cli.model.accelerators import Accelerator
from tpuemb_cli.model.chips import Chip
from tpuemb_cli.model.memory import Memory
from tpuemb_cli.model.memory_record import memory_report, slice_mismatch
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.views.memory_json import render_json
from tpuemb_cli.views.memory_text import render_text

__all__ = ["explain_memory", "memory_json", "slice_mismatch"]


def explain_memory(
    name: str,
    config: TPUEmbeddingConfiguration,
    memory: Memory,
    chip: Chip | None,
    header: str = "",
    tpu: Accelerator | None = None,
) -> str:
    """The human report of ``config``'s memory, ``memory`` (``model.memory.model``'s);
    ``header``: what the file is, if not a config."""
    return render_text(memory_report(name, config, memory, chip, tpu, header))


def memory_json(
    name: str,
    config: TPUEmbeddingConfiguration,
    memory: Memory,
    chip: Chip | None,
    tpu: Accelerator | None = None,
) -> str:
    """The same report as a JSON document."""
    return render_json(memory_report(name, config, memory, chip, tpu))
