"""``workspace/executeCommand`` with the command ``tpuemb.printDebugInformation`` (as ruff's
``ruff.printDebugInformation``): tpuemb's version, Python's, the editor's settings in force and
how diagnostics go; given a document's URI (or ``{"textDocument": {"uri": ...}}``), which
configuration file governs it and the rules enabled for it. Returned as text, and logged."""

from __future__ import annotations

import json
import sys
from typing import Any

from lsprotocol import types as lsp

from tpuemb_cli import __version__
from tpuemb_cli.engine.settings import SettingsError
from tpuemb_cli.server.command_arguments import document_uri
from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.WORKSPACE_EXECUTE_COMMAND
COMMAND = "tpuemb.printDebugInformation"
OPTIONS = lsp.ExecuteCommandOptions(commands=[COMMAND])


def governing(ls: TpuembServer, uri: str) -> list[str]:
    """What governs the document ``uri``: its configuration file and the rules enabled. Runs on
    the worker thread (the linter's configuration cache is its)."""
    try:
        settings = ls.linter.settings_for(uri)
    except (SettingsError, OSError) as problem:
        return [f"  configuration: cannot be used: {problem}"]
    if settings.path is None:
        where = "none (tpuemb's defaults)"
        if ls.settings.isolated:
            where += ", the setting 'isolated' is on"
    else:
        where = str(settings.path)
    enabled = sorted(settings.enabled())
    return [
        f"  configuration file: {where}",
        f"  rules enabled ({len(enabled)}): {', '.join(enabled)}",
    ]


async def handle(ls: TpuembServer, *arguments: Any) -> str:
    uri = document_uri(COMMAND, arguments, required=False)  # refused before anything is logged
    lines = [
        f"tpuemb {__version__}",
        f"Python {sys.version.split()[0]} ({sys.executable})",
        f"settings in force: {json.dumps(ls.settings.as_json(), sort_keys=True)}",
        f"diagnostics: {'pulled by the editor' if ls.pull else 'pushed to the editor'}",
        f"open documents: {len(ls.workspace.text_documents)}",
    ]
    if uri is not None:
        lines.append(f"document {uri}:")
        lines.extend(await ls.on_worker(governing, ls, uri))
    text = "\n".join(lines)
    ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Info, message=text))
    return text
