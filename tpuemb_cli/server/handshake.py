"""``initialize`` answered before pygls is imported: in the time of the CLI's start-up.

Importing pygls costs most of a second, nearly all of it lsprotocol's type module (hundreds of
attrs classes, their methods compiled at import). An editor waits for the answer to
``initialize`` before it sends anything else, so the server reads the first message itself, with
nothing but ``json``, answers it from ``CAPABILITIES``, and only then imports pygls -- while the
editor is busy sending ``initialized`` and opening documents, which wait in the pipe.

pygls is then handed the same ``initialize`` first (it sets up its workspace and the position
encoding from it, and runs tpuemb's own ``initialize`` handler), and its answer -- the same,
already sent -- is dropped. ``CAPABILITIES`` is what pygls declares from ``protocol.HANDLERS``;
a test compares the two for several editors' capabilities, and fails when a handler's options
change without it. Any other first message (a request before ``initialize``) goes to pygls as it
is.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from typing import Any, BinaryIO

from tpuemb_cli import __version__

# What pygls declares for protocol.HANDLERS (tests/server/test_protocol.py compares them).
CAPABILITIES: dict[str, Any] = {
    "textDocumentSync": {"openClose": True, "change": 2, "save": True},
    "completionProvider": {"triggerCharacters": [":", '"']},
    "hoverProvider": True,
    "codeActionProvider": {"codeActionKinds": ["quickfix", "source.fixAll"]},
    "executeCommandProvider": {"commands": ["tpuemb.fixAll", "tpuemb.printDebugInformation"]},
    "workspace": {
        "workspaceFolders": {"supported": True, "changeNotifications": True},
        "fileOperations": {},
    },
}
# Declared to a client that declares `textDocument.diagnostic` (requests/initialize.py).
PULL_DIAGNOSTICS: dict[str, Any] = {
    "identifier": "tpuemb",
    "interFileDependencies": False,
    "workspaceDiagnostics": False,
}
ENCODINGS = ("utf-8", "utf-16", "utf-32")  # pygls's, which it picks in the client's order


def serve() -> int:
    """Runs the server on standard input and output until the editor says exit; the exit status
    the protocol asks for (0 after shutdown, else 1)."""
    stdin = sys.stdin.buffer
    # pygls closes the stream it writes to on `exit`: a handle of its own on standard output,
    # so that the console's final flush of `sys.stdout` does not fail on a closed stream.
    with os.fdopen(os.dup(sys.stdout.fileno()), "wb") as stdout:
        first = read_message(stdin)
        reply = answer(body_of(first)) if first else None
        if reply is not None:
            stdout.write(frame(reply))
            stdout.flush()
        from tpuemb_cli.server.protocol import build  # pygls: most of a second

        server = build()
        # The console script turns the cyclic collector off for short runs; a server runs for
        # hours, and pygls and asyncio make cycles. What is imported by now lives as long as the
        # process: frozen, the collections that linting large files sets off do not walk it.
        gc.freeze()
        gc.enable()
        answered = reply["id"] if reply is not None else None
        server.start_io(Replay(first, stdin), Answered(stdout, answered))  # type: ignore[arg-type]
    return server.exit_status


def read_message(stream: BinaryIO) -> bytes:
    """One message as it came (headers and body); empty at the end of the stream."""
    raw = b""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return b""
        raw += line
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
        if line in (b"\r\n", b"\n") and length is not None:
            return raw + stream.read(length)


def body_of(raw: bytes) -> Any:
    """A message's JSON, None if it is not JSON."""
    try:
        return json.loads(raw.split(b"\r\n\r\n", 1)[1])
    except (IndexError, ValueError):
        return None


def answer(message: Any) -> dict[str, Any] | None:
    """The answer to an ``initialize`` request (as pygls gives it), None for another message."""
    if not (
        isinstance(message, dict)
        and message.get("method") == "initialize"
        and isinstance(message.get("id"), (int, str))
        and isinstance(message.get("params"), dict)
    ):
        return None
    client = message["params"].get("capabilities")
    general = client.get("general") if isinstance(client, dict) else None
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    encoding = "utf-16"
    if isinstance(offered, list):
        encoding = next((kind for kind in offered if kind in ENCODINGS), encoding)
    capabilities = {"positionEncoding": encoding, **CAPABILITIES}
    document = client.get("textDocument") if isinstance(client, dict) else None
    if isinstance(document, dict) and document.get("diagnostic") is not None:
        capabilities["diagnosticProvider"] = PULL_DIAGNOSTICS
    return {
        "jsonrpc": "2.0",
        "id": message["id"],
        "result": {
            "capabilities": capabilities,
            "serverInfo": {"name": "tpuemb", "version": __version__},
        },
    }


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%b" % (len(body), body)


class Replay:
    """Standard input with the messages already read put back in front, for pygls."""

    def __init__(self, first: bytes, stream: BinaryIO) -> None:
        self.first = first
        self.stream = stream

    def readline(self) -> bytes:
        if self.first:
            line, newline, self.first = self.first.partition(b"\n")
            return line + newline
        return self.stream.readline()

    def read(self, size: int) -> bytes:
        if self.first:
            taken, self.first = self.first[:size], self.first[size:]
            return taken + (self.stream.read(size - len(taken)) if len(taken) < size else b"")
        return self.stream.read(size)


class Answered:
    """Standard output for pygls, which drops pygls's answer to the ``initialize`` answered
    already (``answered_id``); everything else goes through."""

    def __init__(self, stream: BinaryIO, answered_id: int | str | None) -> None:
        self.stream = stream
        self.answered_id = answered_id

    def write(self, data: bytes) -> None:
        if self.answered_id is not None:
            message = body_of(data)
            if (
                isinstance(message, dict)
                and "method" not in message
                and message.get("id") == self.answered_id
            ):
                self.answered_id = None
                return
        self.stream.write(data)

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()
