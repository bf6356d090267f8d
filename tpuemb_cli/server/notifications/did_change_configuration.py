"""``workspace/didChangeConfiguration``: the editor's settings changed (``server.settings``);
they are checked (a problem is a warning shown to the user) and every open document is linted
again with them. A client that sends no settings with it (VS Code's pull model) is asked for
the ``tpuemb`` section (``workspace/configuration``), if it can answer."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.WORKSPACE_DID_CHANGE_CONFIGURATION
OPTIONS = None


async def handle(ls: TpuembServer, params: lsp.DidChangeConfigurationParams) -> None:
    settings: Any = params.settings
    workspace = ls.client_capabilities.workspace
    if not settings and workspace is not None and workspace.configuration:
        try:
            answers = await ls.workspace_configuration_async(
                lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section="tpuemb")])
            )
        except Exception as refused:  # the client said it could, then did not
            ls.log("warn", f"could not ask the editor for the settings: {refused}")
            answers = []
        settings = answers[0] if answers else None
    warnings = await ls.on_worker(ls.configure, settings, False)
    for warning in warnings:
        ls.warn(warning)
    ls.log("debug", f"settings in force: {ls.settings.as_json()}")
    ls.relint()
