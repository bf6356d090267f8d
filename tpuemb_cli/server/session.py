"""The server's state: the open documents' last lints, the linter, its worker thread and the
debounce -- and the two things every handler asks of it, a document's current lint and the
document at the editor's cursor.

Every lint, and everything that reads a lint's result or the engines (code actions), runs on one
worker thread, in order: the engine and the configuration cache are not shared between threads,
and the event loop keeps answering the editor while a large file is linted. Hover and completion
read only the text and the schema, so they are answered on the loop at once.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from tpuemb_cli import __version__
from tpuemb_cli.server.diagnostics import diagnostic, error_diagnostic
from tpuemb_cli.server.linting import Linted, Linter
from tpuemb_cli.server.positions import TextLines
from tpuemb_cli.server.scheduler import DEFAULT_DELAY, Scheduler


class Cursor(NamedTuple):
    """An open document at the editor's cursor: its text, line table, the cursor's offset into
    the text, and its last lint (None before the first)."""

    uri: str
    text: str
    lines: TextLines
    offset: int
    linted: Linted | None


class TpuembServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tpuemb", __version__)
        self.linter = Linter()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tpuemb-lint")
        self.scheduler = Scheduler(self.lint_and_publish, DEFAULT_DELAY)
        self.linted: dict[str, tuple[int | None, Linted]] = {}

    def encoding(self) -> str:
        return str(self.workspace.position_encoding or lsp.PositionEncodingKind.Utf16)

    def is_open(self, uri: str) -> bool:
        return uri in self.workspace.text_documents

    async def on_worker(self, function: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.worker, function, *args)

    async def current(self, uri: str) -> Linted | None:
        """The lint of the document's current text: the last one, or a new one if it changed."""
        if not self.is_open(uri):
            return None
        document = self.workspace.get_text_document(uri)
        stored = self.linted.get(uri)
        if (
            stored is not None
            and stored[0] == document.version
            and stored[1].text == (document.source)
        ):
            return stored[1]
        linted: Linted = await self.on_worker(self.linter.lint, uri, document.source)
        self.linted[uri] = (document.version, linted)
        return linted

    def cursor(self, uri: str, position: lsp.Position) -> Cursor | None:
        """For hover and completion: the open document at ``position``; None for a closed one."""
        if not self.is_open(uri):
            return None
        text = self.workspace.get_text_document(uri).source
        lines = TextLines(text, self.encoding())
        offset = lines.offset(position.line, position.character)
        stored = self.linted.get(uri)
        return Cursor(uri, text, lines, offset, stored[1] if stored else None)

    async def lint_and_publish(self, uri: str) -> None:
        if not self.is_open(uri):
            return
        document = self.workspace.get_text_document(uri)
        version, text = document.version, document.source
        started = time.perf_counter()
        linted: Linted = await self.on_worker(self.linter.lint, uri, text)
        elapsed = (time.perf_counter() - started) * 1000
        if not self.is_open(uri):
            return  # closed meanwhile: its diagnostics were cleared
        self.linted[uri] = (version, linted)
        lines = TextLines(text, self.encoding())
        diagnostics = [diagnostic(finding, lines) for finding in linted.findings]
        if linted.error is not None:
            diagnostics.insert(0, error_diagnostic(linted.error))
        # Logged before publishing: a client that sees the diagnostics has seen the log line.
        what = linted.skipped or linted.error or f"{len(linted.findings)} findings"
        self.window_log_message(
            lsp.LogMessageParams(
                type=lsp.MessageType.Log,
                message=f"linted {uri} (version {version}): {what} in {elapsed:.0f} ms",
            )
        )
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    async def configuration_changed(self) -> None:
        """A configuration file changed: read configurations afresh and re-lint what is open."""
        await self.on_worker(self.linter.reset)
        for uri in list(self.workspace.text_documents):
            self.scheduler.now(uri)
