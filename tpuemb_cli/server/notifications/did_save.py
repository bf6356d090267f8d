"""``textDocument/didSave``: a saved document is linted at once; a saved configuration file is
read afresh and every open document linted again."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.linting import is_config_file
from tpuemb_cli.server.session import TpuembServer, document_key

METHOD = lsp.TEXT_DOCUMENT_DID_SAVE
OPTIONS = None


async def handle(ls: TpuembServer, params: lsp.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    if is_config_file(uri):
        await ls.configuration_changed()
    else:
        ls.scheduler.now(document_key(uri))
