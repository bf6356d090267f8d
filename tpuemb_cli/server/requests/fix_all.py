"""``workspace/executeCommand`` with the command ``tpuemb.fixAll`` and the document (its URI, or
an object holding it: ``command_arguments``): every safe fix, sent back as ``workspace/applyEdit``
(for editors that bind a key to a command rather than a code action). pygls answers the method
itself, calling the handler of the command named."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from tpuemb_cli.server import actions
from tpuemb_cli.server.command_arguments import document_uri
from tpuemb_cli.server.edits import workspace_edit
from tpuemb_cli.server.positions import TextLines
from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.WORKSPACE_EXECUTE_COMMAND
COMMAND = "tpuemb.fixAll"
OPTIONS = lsp.ExecuteCommandOptions(commands=[COMMAND])


async def handle(ls: TpuembServer, *arguments: Any) -> bool:
    """Applies every safe fix to the open document the argument names; False when it is not
    open, there was nothing to fix or the editor refused the edit. An argument that names no
    document is refused (``command_arguments``)."""
    uri = document_uri(COMMAND, arguments, required=True)
    assert uri is not None  # required
    linted = await ls.current(uri)
    if linted is None:
        return False
    action = await ls.on_worker(actions.fix_all_action, linted)
    if action is None:
        return False
    lines = TextLines(linted.text, ls.encoding())
    try:
        result = await ls.workspace_apply_edit_async(
            lsp.ApplyWorkspaceEditParams(
                edit=workspace_edit(uri, action.edits, lines), label=action.title
            )
        )
    except JsonRpcException as refused:  # an answer that was an error, or unreadable
        ls.log("warn", f"the editor did not apply the fixes of {uri}: {refused}")
        return False
    return bool(result.applied)
