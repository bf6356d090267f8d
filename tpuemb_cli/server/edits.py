"""Edits as the editor applies them: tpuemb's edits are character offsets into the loaded text,
LSP's are ranges in the editor's positions."""

from __future__ import annotations

from collections.abc import Iterable

from lsprotocol import types as lsp

from tpuemb_cli.model.edits import TextEdit
from tpuemb_cli.server.positions import TextLines


def text_edit(edit: TextEdit, lines: TextLines) -> lsp.TextEdit:
    start = lines.position(lines.loaded_offset(edit.start))
    end = lines.position(lines.loaded_offset(edit.end))
    return lsp.TextEdit(
        range=lsp.Range(lsp.Position(*start), lsp.Position(*end)), new_text=edit.replacement
    )


def workspace_edit(uri: str, edits: Iterable[TextEdit], lines: TextLines) -> lsp.WorkspaceEdit:
    """``edits`` of the document ``uri``, whose text ``lines`` holds."""
    return lsp.WorkspaceEdit(changes={uri: [text_edit(edit, lines) for edit in edits]})
