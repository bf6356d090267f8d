"""``tpuemb server``: the language server, for editors (LSP over standard input and output).

It needs the ``server`` extra (pygls and lsprotocol), which the rest of tpuemb never imports:
``pip install 'tpuemb[server]'``. The server itself is ``tpuemb_cli/server/``.
"""

from __future__ import annotations

import importlib.util
import sys

import click

from tpuemb_cli.cli.common import EXIT_ERROR, Streams, error
from tpuemb_cli.cli.main import Command

MISSING = (
    "`tpuemb server` needs the language-server libraries (pygls, lsprotocol): "
    "pip install 'tpuemb[server]'"
)


@click.command("server", cls=Command)
@click.option(
    "--stdio",
    is_flag=True,
    help="Talk LSP over standard input and output (the default and only transport; editors "
    "that pass it are welcome).",
)
def command(stdio: bool) -> None:
    """Run the language server: diagnostics, fixes, hover and completion in the editor."""
    # Looked for, not imported: `initialize` is answered before pygls is (server.handshake).
    if any(importlib.util.find_spec(name) is None for name in ("pygls", "lsprotocol")):
        error(Streams.standard(), MISSING)
        sys.exit(EXIT_ERROR)
    from tpuemb_cli.server.handshake import serve

    sys.exit(serve())
