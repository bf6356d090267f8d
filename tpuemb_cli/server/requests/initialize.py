"""``initialize``: pygls answers it (the capabilities come from the handlers' options); tpuemb
reads the editor's settings from the initialization options (``server.settings``), and decides
how diagnostics go: pulled by a client that declares ``textDocument.diagnostic`` (then the
server declares ``diagnosticProvider``), pushed to any other (the pull handler is withdrawn
before pygls declares the capabilities, so such a client is not offered it)."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.INITIALIZE
OPTIONS = None


def handle(ls: TpuembServer, params: lsp.InitializeParams) -> None:
    # Nothing is linted yet: the linter is configured here, on the event loop.
    ls.warnings = ls.configure(params.initialization_options, initial=True)
    document = params.capabilities.text_document
    ls.pull = document is not None and document.diagnostic is not None
    if not ls.pull:
        features = ls.protocol.fm
        features.features.pop(lsp.TEXT_DOCUMENT_DIAGNOSTIC, None)
        features.feature_options.pop(lsp.TEXT_DOCUMENT_DIAGNOSTIC, None)
