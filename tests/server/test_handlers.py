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
    methods = [handler.METHOD for handler in HANDLERS]
    assert len(set(methods)) == len(methods)
    features = build().protocol.fm
    assert set(features.features) == set(methods) - {lsp.WORKSPACE_EXECUTE_COMMAND}
    assert set(features.commands) == {"tpuemb.fixAll"}
    assert set(features.feature_options) == {
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.TEXT_DOCUMENT_COMPLETION,
    }
