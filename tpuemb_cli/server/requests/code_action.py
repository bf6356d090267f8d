"""``textDocument/codeAction``: the fixes and suppressions of the findings in the range asked
about, and "fix all" unless the settings say ``fixAll: false`` (``server.actions`` makes them; this
sends them as workspace edits)."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server import actions
from tpuemb_cli.server.diagnostics import diagnostic
from tpuemb_cli.server.edits import workspace_edit
from tpuemb_cli.server.positions import TextLines
from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.TEXT_DOCUMENT_CODE_ACTION
OPTIONS = lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll]
)


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(position: lsp.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


async def handle(ls: TpuembServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
    uri = params.text_document.uri
    linted = await ls.current(uri)
    if linted is None or linted.document is None:
        return None
    lines = TextLines(linted.text, ls.encoding())
    under = [
        finding
        for finding in linted.findings
        if finding.position is not None
        and _overlaps(diagnostic(finding, lines).range, params.range)
    ]
    wanted = params.context.only
    found: list[actions.Action] = await ls.on_worker(actions.actions_for, linted, under)
    result = []
    for action in found:
        if wanted and not any(action.kind.startswith(kind) for kind in wanted):
            continue
        if not ls.settings.fix_all and action.kind.startswith(lsp.CodeActionKind.SourceFixAll):
            continue  # the editor's `fixAll: false`, as ruff's
        result.append(
            lsp.CodeAction(
                title=action.title,
                kind=action.kind,
                diagnostics=[diagnostic(action.finding, lines)] if action.finding else None,
                is_preferred=action.preferred or None,
                edit=workspace_edit(uri, action.edits, lines),
            )
        )
    return result
