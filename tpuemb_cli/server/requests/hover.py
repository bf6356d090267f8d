"""``textDocument/hover``: a field's declaration and comment, an enum value's, or a rule's
documentation (``server.assist`` finds it), over the word it is about."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server import assist
from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.TEXT_DOCUMENT_HOVER
OPTIONS = None


def handle(ls: TpuembServer, params: lsp.HoverParams) -> lsp.Hover | None:
    at = ls.cursor(params.text_document.uri, params.position)
    if at is None:
        return None
    found = assist.hover(at.uri, at.text, at.offset, at.linted)
    if found is None:
        return None
    markdown, (start, end) = found
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=markdown),
        range=lsp.Range(
            lsp.Position(*at.lines.position(start)), lsp.Position(*at.lines.position(end))
        ),
    )
