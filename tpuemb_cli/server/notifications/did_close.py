"""``textDocument/didClose``: the document's lints are forgotten and its diagnostics cleared (the
pushed ones: pulled diagnostics are the editor's to drop)."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.session import TpuembServer, document_key

METHOD = lsp.TEXT_DOCUMENT_DID_CLOSE
OPTIONS = None


def handle(ls: TpuembServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    key = document_key(uri)
    ls.scheduler.forget(key)
    ls.linted.pop(key, None)
    if not ls.pull:
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
