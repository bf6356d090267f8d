"""``textDocument/diagnostic`` (LSP 3.17): the editor pulls a document's diagnostics -- the same
as would be pushed, a full report of its current text (linted now if it changed). Declared only
to a client that declares it can pull (``initialize``); the others are pushed diagnostics."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.TEXT_DOCUMENT_DIAGNOSTIC
OPTIONS = lsp.DiagnosticOptions(
    identifier="tpuemb", inter_file_dependencies=False, workspace_diagnostics=False
)


async def handle(
    ls: TpuembServer, params: lsp.DocumentDiagnosticParams
) -> lsp.RelatedFullDocumentDiagnosticReport:
    linted = await ls.current(params.text_document.uri)
    items = ls.diagnostics(linted) if linted is not None else []
    return lsp.RelatedFullDocumentDiagnosticReport(items=items)
