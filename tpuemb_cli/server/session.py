"""The server's state: the open documents' last lints, the linter, its worker thread and the
debounce -- and the two things every handler asks of it, a document's current lint and the
document at the editor's cursor -- and the editor's settings (``server.settings``), with the
log level they set.

Diagnostics go to the editor one of two ways, chosen at ``initialize``: pushed
(``publishDiagnostics``) after each lint, as every client takes them; or, for a client that
declares ``textDocument.diagnostic`` (LSP 3.17), pulled -- the editor asks for a document's
diagnostics when it wants them, and nothing is pushed (``pull``).

Every lint, and everything that reads a lint's result or the engines (code actions), runs on one
worker thread, in order: the engine and the configuration cache are not shared between threads,
and the event loop keeps answering the editor while a large file is linted. Hover and completion
read only the text and the schema, so they are answered on the loop at once.

An open document is known by one key, its URI unquoted (``document_key``), which is how pygls's
workspace stores it: an editor percent-escapes a space, a Windows drive's colon
(``file:///c%3A/...``) and every non-ASCII character, and may spell the same URI otherwise in a
later request. The lints and the debounce are keyed on it; diagnostics go out under the URI the
editor opened the document with.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from tpuemb_cli import __version__
from tpuemb_cli.engine.settings import Selection
from tpuemb_cli.server import settings as editor_settings
from tpuemb_cli.server.diagnostics import diagnostic, error_diagnostic
from tpuemb_cli.server.linting import Linted, Linter
from tpuemb_cli.server.positions import TextLines
from tpuemb_cli.server.rpc import TpuembProtocol
from tpuemb_cli.server.scheduler import DEFAULT_DELAY, Scheduler
from tpuemb_cli.server.settings import LOG_LEVELS, ServerSettings

# The log levels of the settings (ruff's names), as LSP's message types.
MESSAGE_TYPES = {
    "error": lsp.MessageType.Error,
    "warn": lsp.MessageType.Warning,
    "info": lsp.MessageType.Info,
    "debug": lsp.MessageType.Log,
}


def document_key(uri: str) -> str:
    """The key of the open document ``uri`` names, however the editor escaped it (pygls's
    workspace keys its documents on the same)."""
    return unquote(uri)


class Cursor(NamedTuple):
    """An open document at the editor's cursor: its text, line table, the cursor's offset into
    the text, and its last lint (None before the first). ``uri`` is the editor's."""

    uri: str
    text: str
    lines: TextLines
    offset: int
    linted: Linted | None


class TpuembServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tpuemb", __version__, protocol_cls=TpuembProtocol)
        self.linter = Linter()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tpuemb-lint")
        self.scheduler = Scheduler(self.lint_and_publish, DEFAULT_DELAY)
        # By document key: the version and the lint of it.
        self.linted: dict[str, tuple[int | None, Linted]] = {}
        self.settings = ServerSettings()
        self.initial: Mapping[str, object] = {}  # the fields the initialization options set
        self.changed: Mapping[str, object] = {}  # those the last didChangeConfiguration set
        self.warnings: list[str] = []  # the settings' problems, shown once initialized
        self.pull = False  # the editor pulls diagnostics (textDocument/diagnostic)

    @property
    def exit_status(self) -> int:
        """What the process should exit with once the server stops (the protocol's rule)."""
        protocol: TpuembProtocol = self.protocol  # type: ignore[assignment]
        return protocol.exit_status

    def encoding(self) -> str:
        return str(self.workspace.position_encoding or lsp.PositionEncodingKind.Utf16)

    def document(self, key: str) -> TextDocument | None:
        """The open document of ``key`` (``document_key``), None if it is not open."""
        document: TextDocument | None = self.workspace.text_documents.get(key)
        return document

    async def on_worker(self, function: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.worker, function, *args)

    async def current(self, uri: str) -> Linted | None:
        """The lint of the document's current text: the last one, or a new one if it changed."""
        key = document_key(uri)
        document = self.document(key)
        if document is None:
            return None
        stored = self.linted.get(key)
        if (
            stored is not None
            and stored[0] == document.version
            and stored[1].text == (document.source)
        ):
            return stored[1]
        return await self.lint(document)

    async def lint(self, document: TextDocument) -> Linted:
        """Lints the document's text as it is now, keeps the lint and logs it."""
        uri, version, text = document.uri, document.version, document.source
        started = time.perf_counter()
        linted: Linted = await self.on_worker(self.linter.lint, uri, text)
        elapsed = (time.perf_counter() - started) * 1000
        key = document_key(uri)
        if self.document(key) is None:
            return linted  # closed meanwhile: its diagnostics were cleared
        self.linted[key] = (version, linted)
        # Logged before publishing: a client that sees the diagnostics has seen the log line.
        if linted.skipped is not None:
            what = f"skipped {uri} (version {version}): {linted.skipped}"
        elif linted.error is not None:
            what = f"could not lint {uri} (version {version}): {linted.error}"
        else:
            what = f"linted {uri} (version {version}): {len(linted.findings)} findings"
        self.log("info", f"{what} in {elapsed:.0f} ms")
        return linted

    def diagnostics(self, linted: Linted) -> list[lsp.Diagnostic]:
        """The editor's diagnostics of a lint: its findings, after why it could not lint."""
        lines = TextLines(linted.text, self.encoding())
        diagnostics = [diagnostic(finding, lines) for finding in linted.findings]
        if linted.error is not None:
            diagnostics.insert(0, error_diagnostic(linted.error, lines, linted.error_offset))
        return diagnostics

    def cursor(self, uri: str, position: lsp.Position) -> Cursor | None:
        """For hover and completion: the open document at ``position``; None for a closed one."""
        key = document_key(uri)
        document = self.document(key)
        if document is None:
            return None
        text = document.source
        lines = TextLines(text, self.encoding())
        offset = lines.offset(position.line, position.character)
        stored = self.linted.get(key)
        return Cursor(document.uri, text, lines, offset, stored[1] if stored else None)

    async def lint_and_publish(self, key: str) -> None:
        """Lints the open document of ``key`` (``document_key``) and publishes its diagnostics;
        nothing, when the editor pulls them (it asks, and the lint is done then)."""
        document = self.document(key)
        if document is None or self.pull:
            return
        version = document.version
        linted = await self.lint(document)
        if self.document(key) is None:
            return  # closed meanwhile: its diagnostics were cleared
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=document.uri, diagnostics=self.diagnostics(linted), version=version
            )
        )

    async def configuration_changed(self) -> None:
        """A configuration file changed: read configurations afresh and re-lint what is open."""
        await self.on_worker(self.linter.reset)
        self.relint()

    def relint(self) -> None:
        """Lints every open document again: at once when diagnostics are pushed; when they are
        pulled, the editor is asked to pull again (if it can be)."""
        self.linted.clear()
        if not self.pull:
            for key in list(self.workspace.text_documents):
                self.scheduler.now(key)
            return
        workspace = self.client_capabilities.workspace
        if (
            workspace is not None
            and workspace.diagnostics
            and workspace.diagnostics.refresh_support
        ):
            self.workspace_diagnostic_refresh(None)

    def log(self, level: str, message: str) -> None:
        """``window/logMessage``, if ``level`` is within the settings' ``logLevel``."""
        if LOG_LEVELS.index(level) <= LOG_LEVELS.index(self.settings.log_level):
            self.window_log_message(
                lsp.LogMessageParams(type=MESSAGE_TYPES[level], message=message)
            )

    def warn(self, message: str) -> None:
        """A warning the user sees (``window/showMessage``), and the log's copy of it."""
        self.window_show_message(
            lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=f"tpuemb: {message}")
        )
        self.log("warn", message)

    def configure(self, options: object, initial: bool) -> list[str]:
        """Takes the editor's settings (``options``, as the client sent them: the initialization
        options, or a didChangeConfiguration's ``settings``); the warnings on them. Call it on
        the worker thread once linting may have begun: the linter is replaced."""
        section = editor_settings.section_of(options)
        values, warnings = editor_settings.read(section)
        if initial:
            self.initial = values
        elif section:  # an empty change (Neovim sends `{}`) changes nothing
            self.changed = values
        new = editor_settings.layered(self.initial, self.changed)
        if new.configuration is not None and new.isolated:
            warnings.append(
                "settings 'configuration' and 'isolated' contradict each other: "
                "no configuration file is read"
            )
            new = new._replace(configuration=None)
        selection = Selection(new.select, new.extend_select, new.ignore, new.tpu, new.options)
        problem = self.linter.configure(new.configuration, new.isolated, selection)
        if problem is not None:
            warnings.append(f"setting 'configuration': {problem}; it is ignored")
            new = new._replace(configuration=None)
        self.settings = new
        self.scheduler.delay = new.debounce_ms / 1000
        return warnings
