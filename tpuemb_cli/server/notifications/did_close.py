"""``textDocument/didClose``: the document's lints are forgotten and its diagnostics cleared."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.TEXT_DOCUMENT_DID_CLOSE
OPTIONS = None


def handle(ls: TpuembServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.scheduler.forget(uri)
    ls.linted.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
