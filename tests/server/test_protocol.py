"""`tpuemb server` to the letter of LSP, end to end: pygls's own client (and pytest-lsp's) drives
the server process over stdio. The exit status the protocol asks for; documents whose URI the
editor percent-escapes (a space, a Windows drive, non-ASCII); an answer to every request --
positions out of the protocol's range, requests before initialize and after shutdown; a buffer
that holds a lone surrogate; what the log says of a file the server skips."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the `server` extra (pygls) is not installed")

import pytest_asyncio
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient
from pytest_lsp import client_capabilities

from tests.helpers import CLEAN
from tests.server.test_lsp import SERVER, TIMEOUT, Editor, diagnostics, open_doc, until

SERVER_COMMAND = (sys.executable, "-m", "tpuemb_cli", "server")
BROKEN = CLEAN.replace("dimension: 16", "dimension: 0")  # one finding: TE403


# -- the exit status: a server of its own for each test ------------------------------------------
async def start() -> tuple[LanguageClient, asyncio.subprocess.Process]:
    client = LanguageClient("tpuemb-test", "1")
    await client.start_io(*SERVER_COMMAND)
    process = client._server  # pygls keeps the process private
    assert process is not None
    return client, process


async def initialize(client: LanguageClient) -> None:
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())


async def exit_status(client: LanguageClient, process: asyncio.subprocess.Process) -> int:
    client.exit(None)
    status = await asyncio.wait_for(process.wait(), TIMEOUT)
    await client.stop()  # type: ignore[no-untyped-call]
    return status


@pytest.mark.asyncio
@pytest.mark.slow
async def test_shutdown_then_exit_exits_0() -> None:
    client, process = await start()
    await initialize(client)
    await client.shutdown_async(None)
    # After shutdown, a request is refused (InvalidRequest), not left unanswered.
    with pytest.raises(JsonRpcException) as refused:
        await asyncio.wait_for(
            client.text_document_hover_async(
                lsp.HoverParams(lsp.TextDocumentIdentifier("file:///a.pbtxt"), lsp.Position(0, 0))
            ),
            TIMEOUT,
        )
    assert refused.value.code == -32600
    assert await exit_status(client, process) == 0
    assert process.stderr is not None
    assert b"Traceback" not in await process.stderr.read()


@pytest.mark.asyncio
@pytest.mark.slow
async def test_exit_without_shutdown_exits_1() -> None:
    client, process = await start()
    await initialize(client)
    assert await exit_status(client, process) == 1


@pytest.mark.asyncio
@pytest.mark.slow
async def test_requests_before_initialize_are_refused_as_not_initialized() -> None:
    client, process = await start()
    uri = "file:///tmp/before.pbtxt"
    # A notification before initialize is dropped; a request is answered with -32002.
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "pbtxt", 1, BROKEN))
    )
    for request in (
        client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 0))
        ),
        client.shutdown_async(None),
    ):
        with pytest.raises(JsonRpcException) as refused:
            await asyncio.wait_for(request, TIMEOUT)
        assert refused.value.code == -32002
        assert refused.value.data is None  # no traceback
    # The server is still waiting for initialize, and serves once it comes: the document opened
    # before it was dropped, so the server knows nothing of it.
    await initialize(client)
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 0))
        ),
        TIMEOUT,
    )
    assert hover is None
    assert await exit_status(client, process) == 1


# -- one server for the rest (pytest-lsp) ----------------------------------------------------------
@pytest_lsp.fixture(config=SERVER, scope="module")  # type: ignore[untyped-decorator]
async def server(lsp_client: Editor) -> AsyncIterator[None]:
    params = lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        initialization_options={"debounceMs": 0},
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


@pytest_asyncio.fixture(loop_scope="module")
async def editor(server: Editor) -> AsyncIterator[Editor]:
    yield server
    for uri in set(server.open):
        server.text_document_did_close(
            lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri))
        )


def open_at(client: Editor, uri: str, text: str, language: str = "pbtxt") -> str:
    client.texts[uri] = (1, text)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, language, 1, text))
    )
    return uri


async def hover_at(client: Editor, uri: str, line: int, character: int) -> lsp.Hover | None:
    return await asyncio.wait_for(
        client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, character))
        ),
        TIMEOUT,
    )


ESCAPED = {
    "space": "my%20configs/tables.pbtxt",
    "non-ASCII": "caf%C3%A9/tables.pbtxt",
}


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("where", ["space", "non-ASCII", "drive"])
@pytest.mark.slow
async def test_percent_escaped_uris_are_linted_and_served(
    editor: Editor, tmp_path: Path, where: str
) -> None:
    if where == "drive":  # as VS Code sends a Windows path: the drive's colon escaped
        uri = "file:///c%3A/Users/me/tables.pbtxt"
    else:
        (tmp_path / ESCAPED[where]).parent.mkdir()
        uri = f"{tmp_path.as_uri()}/{ESCAPED[where]}"
    open_at(editor, uri, BROKEN)
    # Published under the URI the editor sent, as `check` lints the same text.
    found = await diagnostics(editor, uri, 1)
    assert [d.code for d in found] == ["TE403"]
    line = BROKEN.split("\n").index("  dimension: 0")
    hover = await hover_at(editor, uri, line, 4)
    assert hover is not None and "int32 dimension = 3" in str(hover.contents)
    completion = await editor.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 4))
    )
    assert isinstance(completion, lsp.CompletionList) and completion.items
    actions = await editor.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), found[0].range, lsp.CodeActionContext(found)
        )
    )
    assert actions and "Suppress TE403 on this line" in [a.title for a in actions]
    # The same document, its URI written without escapes (as another client might): the same.
    unescaped = uri.replace("%20", " ").replace("%3A", ":").replace("%C3%A9", "é")
    again = await hover_at(editor, unescaped, line, 4)
    assert again is not None and again.contents == hover.contents
    assert unescaped not in {params.uri for params in editor.published}


def unchecked_position(line: int, character: int) -> lsp.Position:
    """A position out of the protocol's range, which lsprotocol refuses to build (a client
    written otherwise sends it all the same)."""
    position = lsp.Position(0, 0)
    object.__setattr__(position, "line", line)  # past attrs's validators
    object.__setattr__(position, "character", character)
    return position


@pytest.mark.asyncio(loop_scope="module")
async def test_positions_out_of_range_are_answered(editor: Editor, tmp_path: Path) -> None:
    uri = open_doc(editor, tmp_path / "c.pbtxt", BROKEN)
    await diagnostics(editor, uri, 1)
    # Not positions at all: InvalidParams, naming the value.
    for line, character in ((-1, 0), (2**31, 0), (2**40, 0), (0, -1)):
        with pytest.raises(JsonRpcException) as refused:
            await asyncio.wait_for(
                editor.text_document_hover_async(
                    lsp.HoverParams(
                        lsp.TextDocumentIdentifier(uri), unchecked_position(line, character)
                    )
                ),
                TIMEOUT,
            )
        assert refused.value.code == -32602
        assert f"but was {line if line != 0 else character}." in refused.value.message
    # Positions past the end of the document (the largest the protocol allows): null.
    end = 2**31 - 1
    assert await hover_at(editor, uri, end, 0) is None
    assert await hover_at(editor, uri, 0, end) is None
    completion = await editor.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(end, end))
    )
    assert completion is None or isinstance(completion, lsp.CompletionList)
    # Still serving.
    assert [d.code for d in await diagnostics(editor, uri, 1)] == ["TE403"]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_lone_surrogate_is_said_where_it_is(editor: Editor, tmp_path: Path) -> None:
    text = BROKEN.replace("  dimension: 0", "  dimension: 0  # caf\ud800", 1)
    uri = open_doc(editor, tmp_path / "s.pbtxt", text)
    found = await diagnostics(editor, uri, 1)
    line = text.split("\n").index("  dimension: 0  # caf\ud800")
    # At the surrogate (its width is the negotiated encoding's business).
    assert [(d.severity, d.range.start, d.range.end.line) for d in found] == [
        (lsp.DiagnosticSeverity.Error, lsp.Position(line, len("  dimension: 0  # caf")), line)
    ]
    assert found[0].message == (
        f"tpuemb could not lint this file: it is not UTF-8 text: line {line + 1} holds U+D800, "
        "half of a UTF-16 surrogate pair, which UTF-8 cannot encode; delete it, or write the "
        "character it was meant to be"
    )
    # A JSON file that is no TPU embedding document stays quiet, surrogate or not; the log says
    # it was skipped, and why, rather than "linted".
    package = open_doc(
        editor, tmp_path / "package.json", '{"name": "caf\ud800", "version": "1"}', "json"
    )
    assert await diagnostics(editor, package, 1) == []
    logged = await until(
        lambda: [m.message for m in editor.log_messages if package in m.message],
        "the log line of package.json",
    )
    assert logged[-1].startswith(f"skipped {package} (version 1): its top-level fields are ")
