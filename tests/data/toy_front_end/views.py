"""``explain`` and ``explain --memory`` of a toyemb config."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.model.memory_report import MemoryReport

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import Document

_BYTES = {"float32": 4, "bfloat16": 2}


def explain_toy(document: Document, facts: Any) -> tuple[str, list[str]]:
    config: Any = document.message
    lines = [f"table {t.name}: {t.rows} rows of {t.dim}" for t in config.tables]
    return f"{document.name} (toyemb config)", lines


def memory_toy(document: Document, facts: Any, engine: Engine) -> MemoryReport:
    config: Any = document.message
    dtype = engine.settings.option("toy-dtype")
    sizes = [(t.name, t.rows * max(t.dim, 8) * _BYTES[dtype]) for t in config.tables]
    return MemoryReport(
        "toy",
        document.name,
        {"dtype": dtype, "tables": [{"name": n, "bytes": b} for n, b in sizes]},
        heading=f"{document.name} (toyemb config, {dtype})",
        engine_line="toyemb pads rows to 8 values",
        columns=("table", "bytes"),
        rows=tuple((n, str(b)) for n, b in sizes),
    )
