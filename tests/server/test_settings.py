"""`tpuemb server` as ruff's server offers it, end to end over stdio (pygls's own client, one
server process for each test): pull diagnostics for a client that declares them, push for one
that does not; the editor's settings through the initialization options and
didChangeConfiguration (and a bad one is a warning, not a crash); the debug-information
command."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the `server` extra (pygls) is not installed")

import pytest_asyncio
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from tests.helpers import CLEAN
from tests.server.test_lsp import MISTAKES, TIMEOUT, until

SERVER_COMMAND = (sys.executable, "-m", "tpuemb_cli", "server")
BROKEN = CLEAN.replace("dimension: 16", "dimension: 0")  # one finding: TE403
PULLS = lsp.ClientCapabilities(
    text_document=lsp.TextDocumentClientCapabilities(diagnostic=lsp.DiagnosticClientCapabilities())
)
PUSHED = lsp.ClientCapabilities()

pytestmark = pytest.mark.asyncio


class Client(LanguageClient):
    """pygls's client, keeping what the server pushes and the messages it shows."""

    def __init__(self) -> None:
        super().__init__("tpuemb-test", "1")
        self.published: list[lsp.PublishDiagnosticsParams] = []
        self.shown: list[lsp.ShowMessageParams] = []
        self.result: lsp.InitializeResult | None = None

        # Functions, not bound methods: pygls marks what it registers.
        self.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda p: self.published.append(p))
        self.feature(lsp.WINDOW_SHOW_MESSAGE)(lambda params: self.shown.append(params))
        self.feature(lsp.WINDOW_LOG_MESSAGE)(lambda params: None)

    async def pushed(self, uri: str, version: int) -> list[str]:
        """The codes of the diagnostics the server pushed last for ``version`` of ``uri``."""

        def last() -> lsp.PublishDiagnosticsParams | None:
            found = [p for p in self.published if p.uri == uri and p.version == version]
            return found[-1] if found else None

        await until(lambda: last() is not None, f"diagnostics of {uri} v{version}")
        params = last()
        assert params is not None
        return [str(d.code) for d in params.diagnostics]

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        self.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "pbtxt", version, text))
        )
        return uri


@pytest_asyncio.fixture
async def start() -> AsyncIterator[Any]:
    """Starts a server and initializes it with the capabilities and options given."""
    clients: list[Client] = []

    async def started(capabilities: lsp.ClientCapabilities, options: Any = None) -> Client:
        client = Client()
        clients.append(client)
        await client.start_io(*SERVER_COMMAND)
        client.result = await asyncio.wait_for(
            client.initialize_async(
                lsp.InitializeParams(capabilities=capabilities, initialization_options=options)
            ),
            TIMEOUT,
        )
        client.initialized(lsp.InitializedParams())
        return client

    yield started
    for client in clients:
        process = client._server  # pygls keeps the process private
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
        assert process is not None
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0  # it never crashed
        await client.stop()  # type: ignore[no-untyped-call]


async def pull(client: Client, uri: str) -> list[str]:
    report = await asyncio.wait_for(
        client.text_document_diagnostic_async(
            lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri))
        ),
        TIMEOUT,
    )
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    assert report.kind == "full"
    return [str(d.code) for d in report.items]


@pytest.mark.slow
async def test_a_client_that_pulls_gets_pull_diagnostics_and_no_push(
    start: Any, tmp_path: Path
) -> None:
    client = await start(PULLS)
    provider = client.result.capabilities.diagnostic_provider
    assert isinstance(provider, lsp.DiagnosticOptions)
    assert provider.workspace_diagnostics is False
    uri = client.open(tmp_path / "broken.pbtxt", BROKEN)
    assert await pull(client, uri) == ["TE403"]
    # The document's current text, after a change:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [lsp.TextDocumentContentChangeWholeDocument(CLEAN)],
        )
    )
    assert await pull(client, uri) == []
    await asyncio.sleep(0.5)  # past the debounce: a push would have come by now
    assert client.published == []


@pytest.mark.slow
async def test_a_client_that_cannot_pull_is_pushed_diagnostics(start: Any, tmp_path: Path) -> None:
    client = await start(PUSHED)
    assert client.result.capabilities.diagnostic_provider is None
    uri = client.open(tmp_path / "broken.pbtxt", BROKEN)
    assert await client.pushed(uri, 1) == ["TE403"]


@pytest.mark.slow
async def test_initialization_options_ignore_hides_the_rule(start: Any, tmp_path: Path) -> None:
    client = await start(PUSHED, {"ignore": ["TE403"]})
    uri = client.open(tmp_path / "broken.pbtxt", BROKEN)
    assert await client.pushed(uri, 1) == []
    assert client.shown == []
    # And a pulling client's, under the "tpuemb" section as VS Code and Neovim name it:
    puller = await start(PULLS, {"tpuemb": {"select": ["TE1"]}})
    assert await pull(puller, puller.open(tmp_path / "also.pbtxt", BROKEN)) == []


@pytest.mark.slow
async def test_did_change_configuration_relints_the_open_documents(
    start: Any, tmp_path: Path
) -> None:
    client = await start(PUSHED)
    uri = client.open(tmp_path / "broken.pbtxt", BROKEN)
    assert await client.pushed(uri, 1) == ["TE403"]
    before = len(client.published)
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"tpuemb": {"ignore": ["invalid-table-size"]}})
    )
    await until(lambda: len(client.published) > before, "diagnostics after the change")
    assert await client.pushed(uri, 1) == []
    # A configuration file named by the settings governs every document (as --config does).
    config = tmp_path / "elsewhere" / "strict.toml"
    config.parent.mkdir()
    config.write_text('select = ["TE1"]\n')
    before = len(client.published)
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"configuration": str(config)})
    )
    await until(lambda: len(client.published) > before, "diagnostics after the second change")
    assert await client.pushed(uri, 1) == []
    # Back to the defaults (the change replaces the previous one):
    before = len(client.published)
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"tpuemb": {"isolated": True}})
    )
    await until(lambda: len(client.published) > before, "diagnostics after the third change")
    assert await client.pushed(uri, 1) == ["TE403"]
    assert client.shown == []


@pytest.mark.slow
async def test_bad_settings_are_warnings_and_the_server_goes_on(start: Any, tmp_path: Path) -> None:
    options = {
        "ignre": ["TE403"],
        "logLevel": "loud",
        "tpu": "v99",
        "select": "TE4",
        "configuration": str(tmp_path / "missing.toml"),
    }
    client = await start(PUSHED, options)
    uri = client.open(tmp_path / "broken.pbtxt", BROKEN)
    assert await client.pushed(uri, 1) == ["TE403"]  # every bad key kept its default
    await until(lambda: len(client.shown) == 5, "five warnings")
    assert {m.type for m in client.shown} == {lsp.MessageType.Warning}
    messages = sorted(m.message for m in client.shown)
    assert messages == [
        f"tpuemb: setting 'configuration': {tmp_path / 'missing.toml'}: no such file; it is "
        "ignored",
        "tpuemb: setting 'logLevel': expected one of error, warn, info, debug, got \"loud\"; it "
        "is ignored",
        "tpuemb: setting 'select': expected a list of rule codes, names or prefixes, got \"TE4\";"
        " it is ignored",
        "tpuemb: setting 'tpu': unknown TPU 'v99' (chips: v2, v3, v4, v5e, v5p, v6e, tpu7x; or an "
        "accelerator type such as v5p-128); it "
        "is ignored",
        "tpuemb: unknown setting 'ignre'; did you mean `ignore`?",
    ]
    # A bad configuration file, named in a change: a warning; the rest of the change applies.
    bad = tmp_path / "bad.toml"
    bad.write_text("select = 3\n")
    before = len(client.published)
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(
            settings={"configuration": str(bad), "extendSelect": ["TE403"], "isolated": []}
        )
    )
    await until(lambda: len(client.published) > before, "diagnostics after the change")
    await until(lambda: len(client.shown) == 7, "two more warnings")
    assert "bad.toml" in client.shown[5].message or "bad.toml" in client.shown[6].message
    assert any("'isolated': expected true or false" in m.message for m in client.shown[5:])


@pytest.mark.slow
async def test_the_debug_command_names_the_governing_configuration(
    start: Any, tmp_path: Path
) -> None:
    (tmp_path / ".tpuemb.toml").write_text('ignore = ["TE403"]\n')
    client = await start(PULLS, {"logLevel": "warn"})
    uri = client.open(tmp_path / "model.pbtxt", BROKEN)
    text = await asyncio.wait_for(
        client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(
                "tpuemb.printDebugInformation", [{"textDocument": {"uri": uri}}]
            )
        ),
        TIMEOUT,
    )
    lines = text.splitlines()
    assert lines[0].startswith("tpuemb ")
    assert lines[1].startswith(f"Python {sys.version.split()[0]} ")
    assert '"logLevel": "warn"' in lines[2]
    assert lines[3] == "diagnostics: pulled by the editor"
    assert lines[4] == "open documents: 1"
    assert lines[5] == f"document {uri}:"
    assert lines[6] == f"  configuration file: {tmp_path / '.tpuemb.toml'}"
    assert lines[7].startswith("  rules enabled (")
    enabled = lines[7].split(": ", 1)[1].split(", ")
    assert "TE401" in enabled
    assert "TE403" not in enabled


@pytest.mark.slow
async def test_fix_all_false_withdraws_the_fix_all_action(start: Any, tmp_path: Path) -> None:
    # As ruff's `fixAll`: the editor runs "fix all" on save through its own setting
    # (VS Code's codeActionsOnSave); `false` withdraws the action, the quick fixes stay.
    async def kinds(client: Client, uri: str) -> list[str]:
        await client.pushed(uri, 1)
        found = await asyncio.wait_for(
            client.text_document_code_action_async(
                lsp.CodeActionParams(
                    lsp.TextDocumentIdentifier(uri),
                    lsp.Range(lsp.Position(0, 0), lsp.Position(200, 0)),
                    lsp.CodeActionContext(diagnostics=[]),
                )
            ),
            TIMEOUT,
        )
        return sorted({str(action.kind) for action in found or [] if hasattr(action, "kind")})

    fixing = await start(PUSHED)
    assert await kinds(fixing, fixing.open(tmp_path / "a.pbtxt", MISTAKES)) == [
        "quickfix",
        "source.fixAll.tpuemb",
    ]
    client = await start(PUSHED, {"fixAll": False})
    assert await kinds(client, client.open(tmp_path / "b.pbtxt", MISTAKES)) == ["quickfix"]


@pytest.mark.slow
async def test_a_change_without_settings_asks_the_editor_for_them(
    start: Any, tmp_path: Path
) -> None:
    # VS Code's pull model: didChangeConfiguration carries null, the server asks for `tpuemb`.
    capabilities = lsp.ClientCapabilities(
        workspace=lsp.WorkspaceClientCapabilities(configuration=True)
    )
    client = await start(capabilities)
    asked: list[lsp.ConfigurationParams] = []

    def answer(params: lsp.ConfigurationParams) -> list[Any]:
        asked.append(params)
        return [{"ignore": ["TE403"]}]

    client.feature(lsp.WORKSPACE_CONFIGURATION)(answer)
    uri = client.open(tmp_path / "broken.pbtxt", BROKEN)
    assert await client.pushed(uri, 1) == ["TE403"]
    before = len(client.published)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    await until(lambda: len(client.published) > before, "diagnostics after the change")
    assert await client.pushed(uri, 1) == []
    assert [item.section for item in asked[0].items] == ["tpuemb"]


@pytest.mark.slow
async def test_a_tpu_setting_outside_the_grammar_is_a_warning(start: Any, tmp_path: Path) -> None:
    # Read as v5p-128 before (issue 36, point 14): CLEAN's 8 cores were held against 64 (TE603).
    client = await start(PUSHED, {"tpu": "v5p--128"})
    uri = client.open(tmp_path / "clean.pbtxt", CLEAN)
    assert await client.pushed(uri, 1) == []
    await until(lambda: len(client.shown) == 1, "a warning")
    assert client.shown[0].type == lsp.MessageType.Warning
    assert client.shown[0].message.startswith(
        "tpuemb: setting 'tpu': TPU 'v5p--128' is not written as a TPU is named: a chip (v2, v3, "
    )
    assert client.shown[0].message.endswith("; did you mean `v5p-128`?; it is ignored")
