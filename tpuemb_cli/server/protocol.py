"""The language server: every request and notification tpuemb handles, registered with pygls.

``HANDLERS`` is the registry -- one module each, in ``requests/`` and ``notifications/``, with
its LSP ``METHOD``, its ``OPTIONS`` and ``handle``. A new one is a module and a row here; pygls
declares the capabilities from the rows' options.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, Protocol

from lsprotocol import types as lsp

from tpuemb_cli.server.notifications import (
    did_change,
    did_change_watched_files,
    did_close,
    did_open,
    did_save,
    initialized,
)
from tpuemb_cli.server.requests import code_action, completion, fix_all, hover, initialize
from tpuemb_cli.server.session import TpuembServer


class Handler(Protocol):
    """What a handler module holds (mypy checks each row of ``HANDLERS`` against it)."""

    # Properties: a module's names are read here, never set.
    @property
    def METHOD(self) -> str: ...  # the LSP method

    @property
    def OPTIONS(self) -> object: ...  # what it declares in the capabilities, or None

    @property
    def handle(self) -> Callable[..., Any]: ...  # pygls calls it with the server and the params


HANDLERS: tuple[Handler, ...] = (
    # requests
    initialize,
    code_action,
    fix_all,
    hover,
    completion,
    # notifications
    initialized,
    did_open,
    did_change,
    did_save,
    did_close,
    did_change_watched_files,
)


def build() -> TpuembServer:
    server = TpuembServer()
    for handler in HANDLERS:
        if isinstance(handler.OPTIONS, lsp.ExecuteCommandOptions):
            # pygls answers `workspace/executeCommand` itself, calling the handler of the command
            # the params name (and declares the commands in the capabilities).
            for command in handler.OPTIONS.commands:
                server.command(command)(handler.handle)
        else:
            server.feature(handler.METHOD, handler.OPTIONS)(handler.handle)
    return server


def serve() -> int:
    """Runs the server on stdin and stdout until the editor says exit; the exit status the
    protocol asks for (0 after shutdown, else 1)."""
    server = build()
    # pygls closes the stream it writes to on `exit`: a handle of its own on standard output,
    # so that the console's final flush of `sys.stdout` does not fail on a closed stream.
    with os.fdopen(os.dup(sys.stdout.fileno()), "wb") as stdout:
        server.start_io(sys.stdin.buffer, stdout)
    return server.exit_status
