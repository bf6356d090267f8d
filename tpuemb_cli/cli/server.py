"""``tpuemb server``: the language server, for editors (LSP over standard input and output).

It needs the ``server`` extra (pygls and lsprotocol), which the rest of tpuemb never imports:
``pip install 'tpuemb[server]'``. The server itself is ``tpuemb_cli/server/``.
"""

from __future__ import annotations

import gc
import sys

import click

from tpuemb_cli.cli.common import EXIT_ERROR, Streams, error

MISSING = (
    "`tpuemb server` needs the language-server libraries (pygls, lsprotocol): "
    "pip install 'tpuemb[server]'"
)


@click.command("server")
@click.option(
    "--stdio",
    is_flag=True,
    help="Talk LSP over standard input and output (the default and only transport; editors "
    "that pass it are welcome).",
)
def command(stdio: bool) -> None:
    """Run the language server: diagnostics, fixes, hover and completion in the editor."""
    try:
        from tpuemb_cli.server.protocol import serve
    except ImportError as missing:
        if missing.name not in ("pygls", "lsprotocol") and not str(missing.name).startswith(
            ("pygls.", "lsprotocol.")
        ):
            raise
        error(Streams.standard(), MISSING)
        sys.exit(EXIT_ERROR)
    # The console script turns the cyclic collector off for short runs; a server runs for hours,
    # and pygls and asyncio make cycles. What is imported by now lives as long as the process:
    # frozen, the collections that linting large files sets off do not walk it each time.
    gc.freeze()
    gc.enable()
    sys.exit(serve())
