"""What ``explain`` shows of a TorchRecSpec: the stacks torchrec makes of its tables, with their
padding and shard layout; and what ``explain --memory`` reports: each device's weights and
optimizer state, each SparseCore's rows, the learning rates and padding, against the chip's
HBM."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.memory_report import MemoryReport


def explain_torchrec(document: Document, facts: Any) -> tuple[str, list[str]]:
    from tpuemb_cli.frontends.torchrec.views.stacks import explain

    return explain(document.name, document.message)


def memory_torchrec(document: Document, facts: Any, engine: Engine) -> MemoryReport:
    from tpuemb_cli.frontends.torchrec.views.memory import memory_report

    return memory_report(document.name, document.message, engine.accelerator())
