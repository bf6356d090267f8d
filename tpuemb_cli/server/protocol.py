"""The language server: every request and notification tpuemb handles, registered with pygls.

``HANDLERS`` is the registry -- one module each, in ``requests/`` and ``notifications/``, with
its LSP ``METHOD``, its ``OPTIONS`` and ``handle``. A new one is a module and a row here; pygls
declares the capabilities from the rows' options.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from lsprotocol import types as lsp

from tpuemb_cli.server import client_errors
from tpuemb_cli.server.notifications import (
    did_change,
    did_change_configuration,
    did_change_watched_files,
    did_close,
    did_open,
    did_save,
    initialized,
)
from tpuemb_cli.server.requests import (
    code_action,
    completion,
    debug_info,
    diagnostic,
    fix_all,
    hover,
    initialize,
)
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
    debug_info,
    hover,
    completion,
    diagnostic,  # withdrawn at initialize for a client that cannot pull
    # notifications
    initialized,
    did_open,
    did_change,
    did_save,
    did_close,
    did_change_watched_files,
    did_change_configuration,
)


def build() -> TpuembServer:
    client_errors.install()
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
