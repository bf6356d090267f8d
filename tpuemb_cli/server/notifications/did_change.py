"""``textDocument/didChange``: the document is linted after a pause in typing (pygls keeps its
text up to date; ``server.scheduler`` keeps the lints to one running and one waiting)."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.session import TpuembServer, document_key

METHOD = lsp.TEXT_DOCUMENT_DID_CHANGE
OPTIONS = None


def handle(ls: TpuembServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.scheduler.changed(document_key(params.text_document.uri))
