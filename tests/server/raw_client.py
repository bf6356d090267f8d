"""A bare JSON-RPC client of `tpuemb server` over stdio, for what an LSP library will not send or
waits too politely for: buffers of megabytes, arguments of the wrong shape, a server that must
still be alive afterwards. No LSP types: the messages are the dicts that go over the wire.

A thread reads the server's output into a queue; requests the server sends (configuration,
registrations, applyEdit) are answered with null so that it never waits on us.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

SERVER_COMMAND = (sys.executable, "-m", "tpuemb_cli", "server")
Message = dict[str, Any]


class Timeout(AssertionError):
    """The server did not send what was waited for in time."""


class RawClient:
    def __init__(self, cwd: Path, stderr: IO[bytes] | int = subprocess.DEVNULL) -> None:
        self.process = subprocess.Popen(
            SERVER_COMMAND,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=cwd,
        )
        self._inbox: queue.Queue[Message | None] = queue.Queue()
        self._next_id = 0
        self.seen: list[Message] = []  # everything received, in order
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            headers: dict[str, str] = {}
            while True:
                line = stream.readline()
                if not line:
                    self._inbox.put(None)  # the server closed its output
                    return
                line = line.strip()
                if not line:
                    break
                key, value = line.decode("ascii").split(":", 1)
                headers[key.lower()] = value.strip()
            self._inbox.put(json.loads(stream.read(int(headers["content-length"]))))

    def send(self, message: Message) -> None:
        body = json.dumps(message).encode("utf-8")
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def notify(self, method: str, params: Any = None) -> None:
        message: Message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def request(self, method: str, params: Any = None, timeout: float = 30.0) -> Message:
        """The server's response (with its ``result`` or its ``error``)."""
        self._next_id += 1
        number = self._next_id
        message: Message = {"jsonrpc": "2.0", "id": number, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait(
            lambda m: m.get("id") == number and "method" not in m, f"{method}'s answer", timeout
        )

    def wait(self, wanted: Callable[[Message], bool], what: str, timeout: float = 30.0) -> Message:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                message = self._inbox.get(timeout=max(left, 0.001))
            except queue.Empty:
                raise Timeout(f"no {what} in {timeout} s") from None
            if message is None:
                raise Timeout(f"no {what}: the server closed its output ({self.process.wait()})")
            self.seen.append(message)
            if "method" in message and "id" in message:  # a request of the server's
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            if wanted(message):
                return message

    def initialize(self, root: Path, options: Any = None) -> Message:
        answer = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return answer

    def open(self, uri: str, text: str, language: str = "pbtxt") -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}},
        )

    def diagnostics(self, uri: str, timeout: float = 30.0) -> list[Message]:
        """The next diagnostics published for ``uri``."""
        published = self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            ),
            f"diagnostics of {uri}",
            timeout,
        )
        found: list[Message] = published["params"]["diagnostics"]
        return found

    def shutdown_and_exit(self, timeout: float = 30.0) -> int:
        """``shutdown`` then ``exit``: the process's exit status."""
        answer = self.request("shutdown", timeout=timeout)
        assert "error" not in answer, answer
        self.notify("exit")
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def peak_memory(pid: int) -> int | None:
    """The process's peak resident memory in bytes (Linux's VmHWM), None where /proc has none."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return None
