"""The language server's diagnostics against the Python API, on a 1,000-table config.

    python -m bench.server          # `make bench` runs it too

The server runs as editors run it (``tpuemb server`` over stdio, debounce off), and a client
replaces the document's whole text and waits for its ``publishDiagnostics``: the time covers
sending the text, the lint and turning every finding into a diagnostic with its range and links,
and reading the answer. The baseline is ``lint_string`` of the same text in this process (read +
parse + rules). The config has a mistake in every table (1,000 findings), so turning findings
into diagnostics is measured too. Target: <= 1.5x. Each time is the best of several runs.

The second line is start-up: from starting ``tpuemb server`` to its answer to ``initialize``,
against ``tpuemb --version`` (the CLI's start-up), in alternating pairs, the median of the
per-pair ratios (as bench/startup.py measures). Target: <= 1.5x.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.configs import build, render
from bench.startup import tpuemb_command, wall_time
from tpuemb_cli import lint_string

TABLES = 1_000
RUNS = 20
PAIRS = 15


def config_text() -> str:
    config = build(TABLES)
    for table in config.table_descriptor:
        table.optimization_parameters.learning_rate.constant = 0.0  # zero-learning-rate
    return render(config)["text"].decode()


def api_time(text: str, name: str) -> tuple[float, int]:
    start = time.perf_counter()
    count = len(lint_string(text, name=name))
    return time.perf_counter() - start, count


async def measure(text: str, path: Path) -> tuple[float, int, float, int]:
    """The best server and API times, and what each found. The two are measured in turn, run
    after run, so that a slow spell of a shared machine falls on both sides alike."""
    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("tpuemb-bench", "1")
    published: asyncio.Queue[lsp.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    @client.feature(lsp.WINDOW_LOG_MESSAGE)  # type: ignore[untyped-decorator]
    def on_log(params: lsp.LogMessageParams) -> None:
        pass  # one line per lint; not what is measured

    await client.start_io(sys.executable, "-m", "tpuemb_cli", "server")
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), initialization_options={"debounceMs": 0}
        )
    )
    client.initialized(lsp.InitializedParams())
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "pbtxt", 1, text))
    )
    count = len((await published.get()).diagnostics)
    best = api_best = float("inf")
    api_count = 0
    for version in range(2, RUNS + 2):
        api, api_count = api_time(text, str(path))
        api_best = min(api_best, api)
        start = time.perf_counter()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [lsp.TextDocumentContentChangeWholeDocument(text)],
            )
        )
        while (params := await published.get()).version != version:
            pass
        best = min(best, time.perf_counter() - start)
        count = len(params.diagnostics)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]
    return best, count, api_best, api_count


def initialize_time() -> float:
    """Seconds from starting ``tpuemb server`` to reading its answer to ``initialize``."""
    from tpuemb_cli.server.handshake import body_of, frame, read_message

    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    initialize["params"] = {"processId": None, "rootUri": None, "capabilities": {}}
    start = time.perf_counter()
    server = subprocess.Popen(
        [*tpuemb_command(), "server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(frame(initialize))
    server.stdin.flush()
    answer = body_of(read_message(server.stdout))  # type: ignore[arg-type]
    elapsed = time.perf_counter() - start
    assert answer["id"] == 1 and "capabilities" in answer["result"], answer
    for message in (
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ):
        server.stdin.write(frame(message))
    server.stdin.close()
    assert server.wait(60) == 0
    return elapsed


def initialize_ratio(pairs: int = PAIRS) -> tuple[float, float, float]:
    """The median per-pair ratio of initialize to `tpuemb --version`, and each side's median."""
    ours, cli = [], []
    version = [*tpuemb_command(), "--version"]
    for _ in range(pairs):
        ours.append(initialize_time())
        cli.append(wall_time(version))
    ratio = statistics.median(a / b for a, b in zip(ours, cli, strict=True))
    return ratio, statistics.median(ours), statistics.median(cli)


def run() -> float | None:
    """Prints the measurement; the ratio, or None without the `server` extra."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        print("language server: skipped (pip install 'tpuemb[server]')")
        return None
    text = config_text()
    with tempfile.TemporaryDirectory(prefix="tpuemb-bench-server-") as name:
        path = Path(name) / "tables.pbtxt"
        path.write_text(text)
        server, diagnostics, api, api_findings = asyncio.run(measure(text, path))
    assert diagnostics == api_findings == TABLES, (diagnostics, api_findings)
    ratio = server / api
    print(
        f"language server, {TABLES:,} tables, {diagnostics:,} findings (best of {RUNS}): "
        f"didChange -> publishDiagnostics {server * 1000:.0f} ms, lint_string "
        f"{api * 1000:.0f} ms: {ratio:.2f}x (<= 1.5)"
    )
    return ratio


def run_initialize() -> float | None:
    """Prints the start-up measurement; the ratio, or None without the `server` extra."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        print("language server initialize: skipped (pip install 'tpuemb[server]')")
        return None
    ratio, ours, cli = initialize_ratio()
    print(
        f"language server start-up, {PAIRS} alternating pairs: initialize answered after "
        f"{ours * 1000:.0f} ms (median), `tpuemb --version` {cli * 1000:.0f} ms: median per-pair "
        f"ratio {ratio:.2f}x (<= 1.5)"
    )
    return ratio


if __name__ == "__main__":
    run()
    run_initialize()
