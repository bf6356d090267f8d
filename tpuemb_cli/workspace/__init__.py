"""The application layer: what every front end shares between the engine and its own output.

``Workspace`` owns a run's settings (configuration discovery, the command line's selection) and
its engines, one per configuration, and lints one document at a time with ``lint_document``:
settings -> exclusion -> load -> engine, a crash in tpuemb contained as a finding. ``check``,
the language server, the Python API, ``explain`` and ``compile``'s spec check go through it; the
front ends parse their options and print, nothing more. ``diff`` compares pairs of documents
through the same settings and engines (``diff_versions``), the comparison where the rules stand.
``parallel`` runs work in forked copies of the process: ``check``'s files, a large pair's sides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.workspace.linting import Linted, Workspace, debug_tracebacks

if TYPE_CHECKING:
    from tpuemb_cli.workspace.diffing import Diffed, Version, diff_checkpoint, diff_versions

_DIFFING = frozenset({"Diffed", "Version", "diff_checkpoint", "diff_versions"})


def __getattr__(name: str) -> Any:
    # Lazy: `check` (every run of it, and its start-up) does not pay for the diff's module.
    if name in _DIFFING:
        from tpuemb_cli.workspace import diffing

        return getattr(diffing, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Diffed",
    "Linted",
    "Version",
    "Workspace",
    "debug_tracebacks",
    "diff_checkpoint",
    "diff_versions",
]
