"""``textDocument/didOpen``: the document is linted at once."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.session import TpuembServer, document_key

METHOD = lsp.TEXT_DOCUMENT_DID_OPEN
OPTIONS = None


def handle(ls: TpuembServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.scheduler.now(document_key(params.text_document.uri))
