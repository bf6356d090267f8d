"""``textDocument/completion``: the field names or enum values that may go at the cursor
(``server.assist`` finds them), in text format, JSON and YAML; in JSON and YAML each replaces the
word typed with what the encoding needs (a quoted key and `: `, `key: `)."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server import assist
from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.TEXT_DOCUMENT_COMPLETION
OPTIONS = lsp.CompletionOptions(trigger_characters=[":", '"'])

KINDS = {
    "field": lsp.CompletionItemKind.Field,
    "message": lsp.CompletionItemKind.Struct,
    "enum_member": lsp.CompletionItemKind.EnumMember,
    "value": lsp.CompletionItemKind.Value,
}


def handle(ls: TpuembServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
    at = ls.cursor(params.text_document.uri, params.position)
    if at is None:
        return None
    found = assist.completions(at.uri, at.text, at.offset, at.linted)
    if found is None:
        return None
    items, (start, end) = found
    replaced = lsp.Range(
        lsp.Position(*at.lines.position(start)), lsp.Position(*at.lines.position(end))
    )
    return lsp.CompletionList(
        is_incomplete=False,
        items=[
            lsp.CompletionItem(
                label=item.label,
                kind=KINDS[item.kind],
                detail=item.detail,
                documentation=lsp.MarkupContent(
                    kind=lsp.MarkupKind.Markdown, value=item.documentation
                )
                if item.documentation
                else None,
                text_edit=lsp.TextEdit(replaced, item.insert) if item.insert else None,
                filter_text=item.filter or None,
            )
            for item in items
        ],
    )
