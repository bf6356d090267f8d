"""The argument of tpuemb's commands (``workspace/executeCommand``): the document they act on.

A command takes one argument naming a document: its URI, or an object holding it -- a
``TextDocumentIdentifier`` (``{"uri": ...}``) or ``{"textDocument": {"uri": ...}}``, as a code
action's arguments or an editor's command palette pass it. Anything else is refused with
InvalidParams (-32602), saying what was wrong, rather than run as if no document were named: the
editor's user would read the answer for no document as the answer for theirs.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

# RFC 3986's scheme, then its colon: `file:`, `untitled:` (an unsaved buffer), any other.
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_SHAPES = 'a document\'s URI, {"uri": URI} or {"textDocument": {"uri": URI}}'


def document_uri(command: str, arguments: tuple[Any, ...], required: bool) -> str | None:
    """The URI of the document ``arguments`` name; None for no argument, if not ``required``.
    Raises JsonRpcInvalidParams for any other arguments."""
    if not arguments:
        if required:
            raise JsonRpcInvalidParams(f"{command} takes one argument, {_SHAPES}; none was given")
        return None
    if len(arguments) > 1:
        raise JsonRpcInvalidParams(
            f"{command} takes one argument, {_SHAPES}; {len(arguments)} were given"
        )
    argument = arguments[0]
    uri = argument
    if isinstance(uri, dict):
        uri = uri.get("textDocument", uri)
        uri = uri.get("uri") if isinstance(uri, dict) else None
    if not isinstance(uri, str) or not _URI.match(uri):
        raise JsonRpcInvalidParams(
            f"{command} takes {_SHAPES}, not {_shown(argument)}"
            + (" (a path, not a URI: file:// and the path)" if _is_path(uri) else "")
        )
    return uri


def _is_path(value: object) -> bool:
    return isinstance(value, str) and value.startswith(("/", "~", "."))


def _shown(value: object) -> str:
    """The argument as JSON, cut short: it goes into the error's message."""
    text = json.dumps(value)
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text):,} characters)"
