"""``explain --memory --format json``: the one JSON renderer, for every model's ``MemoryReport``
(model/memory_report; each model's adapter builds it)."""

from __future__ import annotations

from tpuemb_cli.model.memory_report import MemoryReport
from tpuemb_cli.model.memory_sweep import Sweep
from tpuemb_cli.views.memory_parts import document_text


def render_json(report: MemoryReport) -> str:
    """The report as the JSON document ``--format json`` writes."""
    return document_text(report.document())


def render_sweep_json(sweep: Sweep) -> str:
    """The sweep as the JSON document ``--format json`` writes: every slice named."""
    return document_text(sweep.document())
