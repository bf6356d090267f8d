"""``initialize``: pygls answers it (the capabilities come from the handlers' options); tpuemb
reads its initialization options."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.server.session import TpuembServer

METHOD = lsp.INITIALIZE
OPTIONS = None


def handle(ls: TpuembServer, params: lsp.InitializeParams) -> None:
    # `{"debounceMs": 100}` in the client's initializationOptions: the pause after typing.
    options = params.initialization_options
    delay = options.get("debounceMs") if isinstance(options, dict) else None
    if isinstance(delay, (int, float)) and not isinstance(delay, bool) and 0 <= delay <= 60000:
        ls.scheduler.delay = delay / 1000
