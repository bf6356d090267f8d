"""The formats ``explain --memory`` writes: one renderer module each, found by name in this
registry (as ``formatters.FORMATS`` for findings), imported only when its format is asked for.
Each module has ``render_<name>(report)`` for one report and ``render_sweep_<name>(sweep)`` for
a sweep over TPUs; none names an ecosystem."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tpuemb_cli.model.memory_report import MemoryReport
    from tpuemb_cli.model.memory_sweep import Sweep

RENDERERS: dict[str, str] = {
    "text": "tpuemb_cli.views.memory_text",
    "json": "tpuemb_cli.views.memory_json",
    "markdown": "tpuemb_cli.views.memory_markdown",
    "html": "tpuemb_cli.views.memory_html",
}


def names() -> list[str]:
    """Every format's name (for --format's choices)."""
    return list(RENDERERS)


def render(report: MemoryReport, name: str) -> str:
    """``report`` in the format ``name``."""
    module = importlib.import_module(RENDERERS[name])
    text: str = getattr(module, f"render_{name}")(report)
    return text


def render_sweep(sweep: Sweep, name: str) -> str:
    """``sweep`` in the format ``name``."""
    module = importlib.import_module(RENDERERS[name])
    text: str = getattr(module, f"render_sweep_{name}")(sweep)
    return text
