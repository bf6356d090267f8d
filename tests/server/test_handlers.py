"""The language server's registry: every module of requests/ and notifications/ is a row of
``protocol.HANDLERS``, each LSP method is handled once, and ``build()`` registers every row."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

pytest.importorskip("pygls", reason="the `server` extra (pygls) is not installed")

from lsprotocol import types as lsp

from tpuemb_cli.server import notifications, requests
from tpuemb_cli.server.protocol import HANDLERS, build


def test_every_handler_module_is_a_row() -> None:
    modules = {
        importlib.import_module(f"{package.__name__}.{info.name}")
        for package in (requests, notifications)
        for info in pkgutil.iter_modules(package.__path__)
    }
    assert set(HANDLERS) == modules
    assert len(HANDLERS) == len(modules)


def test_each_method_once_and_every_row_registered() -> None:
    # Each method once; `workspace/executeCommand` once a command (pygls routes by the command).
    methods = [h.METHOD for h in HANDLERS if h.METHOD != lsp.WORKSPACE_EXECUTE_COMMAND]
    assert len(set(methods)) == len(methods)
    commands = [
        command
        for h in HANDLERS
        if isinstance(h.OPTIONS, lsp.ExecuteCommandOptions)
        for command in h.OPTIONS.commands
    ]
    assert commands == ["tpuemb.fixAll", "tpuemb.printDebugInformation"]
    features = build().protocol.fm
    assert set(features.features) == set(methods)
    assert list(features.commands) == commands
    assert set(features.feature_options) == {
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.TEXT_DOCUMENT_DIAGNOSTIC,
    }


@pytest.mark.parametrize("editor", ["visual-studio-code", "neovim", None])
def test_the_early_initialize_answer_is_what_pygls_declares(editor: str | None) -> None:
    # `initialize` is answered before pygls is imported (server.handshake): with what pygls would
    # answer from HANDLERS, for each editor's capabilities (position encodings differ).
    from pygls.protocol import default_converter
    from pytest_lsp import client_capabilities

    from tpuemb_cli.server import handshake

    capabilities = client_capabilities(editor) if editor else lsp.ClientCapabilities()
    params = lsp.InitializeParams(capabilities=capabilities)
    server = build()
    steps = server.protocol.lsp_initialize(params)
    handler, args, _ = next(steps)
    handler(*args)  # pygls binds the server
    with pytest.raises(StopIteration) as done:
        steps.send(None)
    converter = default_converter()  # type: ignore[no-untyped-call]
    declared = converter.unstructure(done.value.value)
    # pygls spells out the client's own save options as false; absent means the same.
    sync = declared["capabilities"]["textDocumentSync"]
    for option in ("willSave", "willSaveWaitUntil"):
        assert sync.pop(option, False) is False
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    message["params"] = converter.unstructure(params)
    assert handshake.answer(message) == {"jsonrpc": "2.0", "id": 1, "result": declared}
