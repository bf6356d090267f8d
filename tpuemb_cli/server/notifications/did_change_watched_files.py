"""``workspace/didChangeWatchedFiles``: a configuration file changed on disk (the editor watches
them at the server's request: ``initialized``), so every open document is linted again."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.linting import is_config_file
from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
OPTIONS = None


async def handle(ls: TpuembServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    if any(is_config_file(change.uri) for change in params.changes):
        await ls.configuration_changed()
