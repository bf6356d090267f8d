"""`tpuemb server` end to end: a real LSP client (pytest-lsp) drives the server process over stdio
through initialize, didOpen/didChange/didSave, publishDiagnostics, codeAction, executeCommand and
applyEdit, hover, completion and shutdown."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("pygls", reason="the `server` extra (pygls) is not installed")

import pytest_asyncio
import pytest_lsp
from lsprotocol import types as lsp
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.helpers import CLEAN
from tpuemb_cli.cli import main

EXAMPLES = Path(__file__).parents[2] / "examples"
MISTAKES = (EXAMPLES / "mistakes" / "common_mistakes.pbtxt").read_text()
SPEC = (EXAMPLES / "recommender.spec.yaml").read_text()
TIMEOUT = 60.0


class Editor(LanguageClient):
    """A client that keeps every diagnostics notification and applies the server's edits."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[lsp.PublishDiagnosticsParams] = []
        self.applied: list[lsp.ApplyWorkspaceEditParams] = []
        self.registrations: list[lsp.Registration] = []
        self.texts: dict[str, tuple[int, str]] = {}
        self.open: set[str] = set()  # what a test opened and did not close

    def text_document_did_open(self, params: lsp.DidOpenTextDocumentParams) -> None:
        self.open.add(params.text_document.uri)
        super().text_document_did_open(params)

    def text_document_did_close(self, params: lsp.DidCloseTextDocumentParams) -> None:
        self.open.discard(params.text_document.uri)
        super().text_document_did_close(params)


def _record_diagnostics(client: Editor, params: lsp.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _apply_edit(
    client: Editor, params: lsp.ApplyWorkspaceEditParams
) -> lsp.ApplyWorkspaceEditResult:
    client.applied.append(params)
    return lsp.ApplyWorkspaceEditResult(applied=True)


def _register(client: Editor, params: lsp.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def _make_client() -> Editor:
    client = Editor(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record_diagnostics
    features[lsp.WORKSPACE_APPLY_EDIT] = _apply_edit
    features[lsp.CLIENT_REGISTER_CAPABILITY] = _register
    register_lsp_features(client, features)
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "tpuemb_cli", "server"], client_factory=_make_client
)


# One server for the module's tests (for each xdist worker that runs some): starting one costs
# most of a second, mainly importing lsprotocol. Each test still sees an editor of its own: the
# `editor` fixture closes whatever the test left open and forgets what the server sent it.
@pytest_lsp.fixture(config=SERVER, scope="module")  # type: ignore[untyped-decorator]
async def server(lsp_client: Editor) -> AsyncIterator[None]:
    params = lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        initialization_options={"debounceMs": 150},
    )
    result = await lsp_client.initialize_session(params)
    assert result.server_info is not None and result.server_info.name == "tpuemb"
    yield
    await lsp_client.shutdown_session()


@pytest_asyncio.fixture(loop_scope="module")
async def editor(server: Editor) -> AsyncIterator[Editor]:
    process = server._server  # the server's process (pygls keeps it private)
    if server.error is not None or process is None or process.returncode is not None:
        pytest.fail(f"the language server stopped in an earlier test: {server.error}")
    yield server
    # Close what the test left open; the server clears each closed document's diagnostics,
    # in order, so once every clearing has arrived nothing of this test's is still coming.
    before = len(server.published)
    closing = set(server.open)
    for uri in closing:
        server.text_document_did_close(
            lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri))
        )
    if process.returncode is None:  # else the test failed, and the next ones fail at once
        await until(
            lambda: closing <= {p.uri for p in server.published[before:] if p.version is None},
            "the diagnostics of the closed documents cleared",
        )
    server.published.clear()
    server.applied.clear()
    server.texts.clear()


pytestmark = pytest.mark.asyncio(loop_scope="module")


# -- helpers ------------------------------------------------------------------------------------
async def until(condition: Callable[[], Any], what: str) -> Any:
    for _ in range(int(TIMEOUT / 0.02)):
        value = condition()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def diagnostics(client: Editor, uri: str, version: int) -> list[lsp.Diagnostic]:
    """The diagnostics the server published for ``version`` of the document."""

    def found() -> list[lsp.Diagnostic] | None:
        for params in reversed(client.published):
            if params.uri == uri and params.version == version:
                return list(params.diagnostics)
        return None

    found_ = await until(lambda: found() is not None, f"diagnostics of {uri} v{version}")
    del found_
    result = found()
    assert result is not None
    return result


def open_doc(client: Editor, path: Path, text: str, language: str = "pbtxt") -> str:
    uri = path.as_uri()
    client.texts[uri] = (1, text)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        )
    )
    return uri


def change(client: Editor, uri: str, text: str) -> int:
    """Replaces the document's text (a full change, as after an applied edit); its version."""
    version = client.texts[uri][0] + 1
    client.texts[uri] = (version, text)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    return version


def type_at(client: Editor, uri: str, line: int, character: int, typed: str) -> int:
    """An incremental change: ``typed`` inserted at (line, character), as a keystroke sends."""
    version, text = client.texts[uri]
    lines = text.split("\n")
    lines[line] = lines[line][:character] + typed + lines[line][character:]
    client.texts[uri] = (version + 1, "\n".join(lines))
    at = lsp.Position(line, character)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
            content_changes=[
                lsp.TextDocumentContentChangePartial(range=lsp.Range(at, at), text=typed)
            ],
        )
    )
    return version + 1


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    """The editor's side of an edit (ASCII text: positions are characters)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: lsp.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def summary(found: list[lsp.Diagnostic]) -> list[tuple[Any, ...]]:
    return [
        (
            d.code,
            d.severity,
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
        )
        for d in found
    ]


def check_json(path: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["check", "--format", "json", str(path)])
    report: dict[str, Any] = json.loads(result.stdout)
    return report


# -- diagnostics --------------------------------------------------------------------------------
@pytest.mark.slow
async def test_diagnostics_are_what_check_reports(editor: Editor, tmp_path: Path) -> None:
    path = tmp_path / "mistakes.pbtxt"
    path.write_text(MISTAKES)
    uri = open_doc(editor, path, MISTAKES)
    found = await diagnostics(editor, uri, 1)
    severity = {
        "error": lsp.DiagnosticSeverity.Error,
        "warning": lsp.DiagnosticSeverity.Warning,
        "info": lsp.DiagnosticSeverity.Information,
    }
    expected = [
        (
            f["rule"],
            severity[f["severity"]],
            f["line"] - 1,
            f["column"] - 1,
            f["end_line"] - 1,
            f["end_column"] - 1,
        )
        for f in check_json(path)["findings"]
    ]
    assert len(expected) == 6
    assert summary(found) == expected
    first = found[0]
    assert first.source == "tpuemb"
    # No documentation address is declared ([project.urls]): no link is invented (issue 38).
    assert first.code_description is None
    assert first.message == (
        "the gradient clipping range is reversed: lower 10.0 is above upper -10.0, so every "
        "gradient is replaced by -10.0\n"
        "field: table_descriptor[0].optimization_parameters.gradient_clipping_limits\n"
        "help: swap the limits (lower -10.0, upper 10.0); a negative scalar clipvalue causes "
        "this, use a positive one"
    )


async def test_json_and_yaml_specs_too_and_other_files_are_left_alone(
    editor: Editor, tmp_path: Path
) -> None:
    spec = tmp_path / "model.spec.yaml"
    broken = SPEC.replace("dim: 64", "dim: -64", 1)
    spec.write_text(broken)
    uri = open_doc(editor, spec, broken, "yaml")
    found = await diagnostics(editor, uri, 1)
    assert summary(found) == [
        (
            f["rule"],
            lsp.DiagnosticSeverity.Error,
            f["line"] - 1,
            f["column"] - 1,
            f["end_line"] - 1,
            f["end_column"] - 1,
        )
        for f in check_json(spec)["findings"]
    ]
    assert [d.code for d in found] == ["TE701"]
    package = tmp_path / "package.json"
    uri = open_doc(editor, package, '{"name": "web", "version": "1.0.0"}', "json")
    assert await diagnostics(editor, uri, 1) == []


async def test_suppressions_and_configuration_apply(editor: Editor, tmp_path: Path) -> None:
    (tmp_path / ".tpuemb.toml").write_text('ignore = ["TE406"]\n')
    path = tmp_path / "mistakes.pbtxt"
    text = MISTAKES.replace(
        "gradient_clipping_limits { lower { value: 10 } upper { value: -10 } }",
        "gradient_clipping_limits { lower { value: 10 } upper { value: -10 } }"
        "  # tpuemb: ignore[TE301] tested on purpose",
    )
    uri = open_doc(editor, path, text)
    codes = [d.code for d in await diagnostics(editor, uri, 1)]
    assert "TE406" not in codes and "TE301" not in codes and codes
    # The configuration changes on disk; the editor says so: the open document is linted again.
    (tmp_path / ".tpuemb.toml").write_text('ignore = ["TE202"]\n')
    before = len(editor.published)
    editor.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[
                lsp.FileEvent(
                    uri=(tmp_path / ".tpuemb.toml").as_uri(), type=lsp.FileChangeType.Changed
                )
            ]
        )
    )
    await until(lambda: len(editor.published) > before, "a re-lint")
    codes = [d.code for d in editor.published[-1].diagnostics]
    assert "TE406" in codes and "TE202" not in codes
    # Saving a configuration opened in the editor does the same.
    (tmp_path / ".tpuemb.toml").write_text("select = []\n")
    before = len(editor.published)
    editor.text_document_did_save(
        lsp.DidSaveTextDocumentParams(
            lsp.TextDocumentIdentifier((tmp_path / ".tpuemb.toml").as_uri())
        )
    )
    await until(lambda: len(editor.published) > before, "a re-lint after saving the config")
    assert list(editor.published[-1].diagnostics) == []
    # The server asked the editor to watch configuration files.
    assert [r.method for r in editor.registrations] == ["workspace/didChangeWatchedFiles"]


async def test_a_broken_configuration_is_said_on_the_document(
    editor: Editor, tmp_path: Path
) -> None:
    (tmp_path / ".tpuemb.toml").write_text("select = [\n")
    uri = open_doc(editor, tmp_path / "c.pbtxt", CLEAN)
    found = await diagnostics(editor, uri, 1)
    assert len(found) == 1 and found[0].code is None
    assert found[0].message.startswith("tpuemb could not lint this file: ")
    assert ".tpuemb.toml" in found[0].message


async def test_changes_and_saves_relint(editor: Editor, tmp_path: Path) -> None:
    path = tmp_path / "c.pbtxt"
    uri = open_doc(editor, path, CLEAN)
    assert await diagnostics(editor, uri, 1) == []
    version = change(editor, uri, CLEAN.replace("dimension: 16", "dimension: 0"))
    assert [d.code for d in await diagnostics(editor, uri, version)] == ["TE403"]
    editor.text_document_did_save(lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    await until(lambda: len([p for p in editor.published if p.version == version]) == 2, "save")
    editor.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    await until(lambda: editor.published[-1].version is None, "cleared diagnostics")
    assert list(editor.published[-1].diagnostics) == []


# -- typing -------------------------------------------------------------------------------------
def lints(client: Editor, uri: str) -> int:
    return sum(1 for m in client.log_messages if m.message.startswith(f"linted {uri} "))


def large_config(tables: int) -> str:
    table = (
        'table_descriptor {{ name: "t{0}" vocabulary_size: 1000 dimension: 8 '
        "optimization_parameters {{ adagrad {{}} learning_rate {{ constant: 0.1 }} }} }}\n"
    )
    features = 'feature_descriptor {{ name: "f{0}" table_id: {0} input_shape: 4 }}\n'
    body = "".join(table.format(i) for i in range(tables))
    body += "".join(features.format(i) for i in range(tables))
    return body + "mode: TRAINING\nnum_hosts: 1\nnum_tensor_cores: 8\n"


@pytest.mark.slow
async def test_typing_in_a_large_file_queues_at_most_one_lint(
    editor: Editor, tmp_path: Path
) -> None:
    text = large_config(1000)
    uri = open_doc(editor, tmp_path / "large.pbtxt", text)
    await diagnostics(editor, uri, 1)
    assert lints(editor, uri) == 1
    # Forty keystrokes, faster than the pause the server waits for: one lint, of the last text.
    version = 1
    for index in range(40):
        version = type_at(editor, uri, 0, 27 + index, "0")
        await asyncio.sleep(0.01)
    found = await diagnostics(editor, uri, version)
    assert lints(editor, uri) == 2
    assert found == []  # vocabulary_size: 1000 followed by forty zeros is still a size
    # Keystrokes while a lint runs: they wait for it, as one lint, never one each.
    for index in range(40):
        version = type_at(editor, uri, 1, 27 + index, "0")
        await asyncio.sleep(0.03)
    await diagnostics(editor, uri, version)
    await asyncio.sleep(0.5)
    assert 3 <= lints(editor, uri) <= 4, lints(editor, uri)


# -- code actions -------------------------------------------------------------------------------
async def test_code_actions_fix_suppress_and_fix_all(editor: Editor, tmp_path: Path) -> None:
    uri = open_doc(editor, tmp_path / "m.pbtxt", MISTAKES)
    found = await diagnostics(editor, uri, 1)
    clipping = found[0]
    assert clipping.code == "TE301"
    actions = await editor.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), clipping.range, lsp.CodeActionContext([clipping])
        )
    )
    assert actions is not None
    titles = [(a.title, a.kind, a.is_preferred) for a in actions if isinstance(a, lsp.CodeAction)]
    assert titles == [
        (
            "Fix TE301 (unsafe: may change how the model trains): swap the limits",
            "quickfix",
            None,
        ),
        ("Suppress TE301 on this line", "quickfix", None),
        ("Fix all safe tpuemb findings", "source.fixAll.tpuemb", None),
    ]
    fix, suppress, _ = (a for a in actions if isinstance(a, lsp.CodeAction))
    assert fix.edit is not None and fix.edit.changes is not None
    fixed = apply(MISTAKES, list(fix.edit.changes[uri]))
    assert "lower { value: -10.0 } upper { value: 10.0 }" in fixed
    version = change(editor, uri, fixed)
    assert "TE301" not in [d.code for d in await diagnostics(editor, uri, version)]
    # Suppressing, on the original text: the finding goes, and the comment asks for a reason.
    assert suppress.edit is not None and suppress.edit.changes is not None
    suppressed = apply(MISTAKES, list(suppress.edit.changes[uri]))
    assert suppressed.split("\n")[9].endswith(
        "upper { value: -10 } }  # tpuemb: ignore[TE301] TODO: say why this is intended"
    )
    version = change(editor, uri, suppressed)
    assert "TE301" not in [d.code for d in await diagnostics(editor, uri, version)]


async def test_fix_all_through_apply_edit(editor: Editor, tmp_path: Path) -> None:
    path = tmp_path / "m.pbtxt"
    path.write_text(MISTAKES)
    uri = open_doc(editor, path, MISTAKES)
    await diagnostics(editor, uri, 1)
    applied = await editor.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="tpuemb.fixAll", arguments=[uri])
    )
    assert applied is True
    assert len(editor.applied) == 1
    edit = editor.applied[0].edit
    assert edit.changes is not None
    fixed = apply(MISTAKES, list(edit.changes[uri]))
    # What `tpuemb check --fix` writes, exactly.
    CliRunner().invoke(main, ["check", "--fix", str(path)])
    assert fixed == path.read_text() != MISTAKES
    version = change(editor, uri, fixed)
    found = await diagnostics(editor, uri, version)
    assert not any(d.code == "TE204" for d in found)
    # Nothing more to fix: the command says so, and sends no edit.
    assert (
        await editor.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="tpuemb.fixAll", arguments=[uri])
        )
        is False
    )
    assert len(editor.applied) == 1


# -- hover and completion -----------------------------------------------------------------------
async def test_hover_on_fields_values_and_rules(editor: Editor, tmp_path: Path) -> None:
    text = CLEAN + "# tpuemb: file-ignore[TE406] nothing\n"
    uri = open_doc(editor, tmp_path / "c.pbtxt", text)
    lines = text.split("\n")

    async def hover(line: int, word: str) -> str | None:
        at = lsp.Position(line, lines[line].index(word) + 1)
        found = await editor.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), at)
        )
        if found is None:
            return None
        assert isinstance(found.contents, lsp.MarkupContent)
        return found.contents.value

    dimension = next(i for i, line in enumerate(lines) if "dimension:" in line)
    assert await hover(dimension, "dimension") == (
        "```proto\nint32 dimension = 3\n```\n\n"
        "In `tpuemb.tpu.TPUEmbeddingConfiguration.TableDescriptor`."
    )
    status = next(i for i, line in enumerate(lines) if "gradient_accumulation_status" in line)
    assert await hover(status, "ENABLED") == (
        "```proto\nGradientAccumulationStatus.Status.ENABLED = 1\n```\n\n"
        "In `tpuemb.tpu.GradientAccumulationStatus.Status`."
    )
    rule = await hover(len(lines) - 2, "TE406")
    assert rule is not None and rule.startswith("**TE406 unused-table** (error, fix: no)\n\n")
    # Its documentation, and no link to a page the package does not declare (issue 38).
    assert rule.endswith("tpu_embedding_configuration_proto_rewrite_test.cc")


async def test_completion_of_fields_and_enum_values(editor: Editor, tmp_path: Path) -> None:
    text = (
        "table_descriptor {\n"
        "  optimization_parameters {\n"
        "    gradient_accumulation_status: \n"
        "    lear\n"
    )
    uri = open_doc(editor, tmp_path / "typing.pbtxt", text)
    await diagnostics(editor, uri, 1)  # half-typed: a syntax error, and no crash

    async def labels(line: int, character: int, doc: str = uri) -> list[str]:
        found = await editor.text_document_completion_async(
            lsp.CompletionParams(lsp.TextDocumentIdentifier(doc), lsp.Position(line, character))
        )
        assert isinstance(found, lsp.CompletionList)
        return [item.label for item in found.items]

    assert await labels(2, 34) == ["UNSPECIFIED", "ENABLED", "DISABLED"]
    fields = await labels(3, 8)
    assert fields[:4] == [
        "learning_rate",
        "clipping_limits",
        "gradient_clipping_limits",
        "weight_decay_factor",
    ]
    assert "adagrad" in fields and "table_descriptor" not in fields
    assert (await labels(0, 3))[:2] == ["table_descriptor", "mode"]
    spec = open_doc(editor, tmp_path / "s.spec.yaml", "tables:\n  - name: a\n    \n", "yaml")
    table_fields = await labels(2, 4, spec)
    assert "vocabulary_size" in table_fields and "dim" in table_fields


async def test_hover_in_json_and_yaml(editor: Editor, tmp_path: Path) -> None:
    config = (EXAMPLES / "ranking_model.json").read_text()
    json_uri = open_doc(editor, tmp_path / "ranking.json", config, "json")
    spec_uri = open_doc(editor, tmp_path / "r.spec.yaml", SPEC, "yaml")

    async def hover(uri: str, text: str, word: str) -> tuple[str, tuple[int, ...]] | None:
        start = text.index(word)
        line = text.count("\n", 0, start)
        character = start - (text.rfind("\n", 0, start) + 1)
        found = await editor.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, character + 1))
        )
        if found is None:
            return None
        assert isinstance(found.contents, lsp.MarkupContent) and found.range is not None
        span = found.range.start.line, found.range.start.character, found.range.end.character
        return found.contents.value, span

    # a JSON key by its JSON name: the field's declaration; the span is the name, not its quotes
    found = await hover(json_uri, config, "vocabularySize")
    assert found == (
        "```proto\nint64 vocabulary_size = 2\n```\n\n"
        "In `tpuemb.tpu.TPUEmbeddingConfiguration.TableDescriptor`.",
        (4, 7, 21),
    )
    found = await hover(json_uri, config, "ENABLED")
    assert found is not None and found[0] == (
        "```proto\nGradientAccumulationStatus.Status.ENABLED = 1\n```\n\n"
        "In `tpuemb.tpu.GradientAccumulationStatus.Status`."
    )
    assert await hover(json_uri, config, '"video"') is None  # a string value: no schema word
    # YAML: a key in block style, one in a flow mapping
    found = await hover(spec_uri, SPEC, "vocabulary_size")
    assert found is not None and found[0].startswith("```proto\nint64 vocabulary_size = 2\n```")
    found = await hover(spec_uri, SPEC, "initial_accumulator_value")
    assert found is not None and "In `tpuemb.spec.Adagrad`." in found[0]


async def completion(
    editor: Editor, uri: str, line: int, character: int
) -> list[lsp.CompletionItem]:
    found = await editor.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, character))
    )
    assert isinstance(found, lsp.CompletionList)
    return list(found.items)


def edit_of(item: lsp.CompletionItem) -> tuple[str, int, int, int, int]:
    assert isinstance(item.text_edit, lsp.TextEdit)
    r = item.text_edit.range
    return item.text_edit.new_text, r.start.line, r.start.character, r.end.line, r.end.character


async def test_completion_in_json_as_it_is_typed(editor: Editor, tmp_path: Path) -> None:
    # Half-typed: an open key, unclosed braces; the names around follow JSON's camelCase.
    text = (
        "{\n"
        '  "tableDescriptor": [\n'
        "    {\n"
        '      "name": "video",\n'
        '      "vo"\n'
        '      "optimizationParameters": {"adagrad": {}, "gradientAccumulationStatus": "\n'
    )
    uri = open_doc(editor, tmp_path / "typing.json", text, "json")
    await diagnostics(editor, uri, 1)  # not JSON yet: a syntax error, and no crash
    items = await completion(editor, uri, 4, 9)  # in "vo|"
    labels = [item.label for item in items]
    assert labels[:3] == ["vocabularySize", "dimension", "numFeatures"]
    # what is written is not offered again
    assert "name" not in labels and "optimizationParameters" not in labels
    first = items[0]
    # the whole key, quotes and all, becomes the quoted key and `: `
    assert edit_of(first) == ('"vocabularySize": ', 4, 6, 4, 10)
    # ... and a key with its colon already written is replaced colon and all
    change(editor, uri, text.replace('"vo"', '"vo": 5,'))
    items = await completion(editor, uri, 4, 9)
    assert edit_of(items[0]) == ('"vocabularySize": ', 4, 6, 4, 12)
    assert first.filter_text == '"vocabularySize"'
    assert first.kind == lsp.CompletionItemKind.Field
    # an enum value, quoted
    line = text.split("\n")[5]
    items = await completion(editor, uri, 5, len(line))
    assert [(item.label, edit_of(item)[0]) for item in items] == [
        ("UNSPECIFIED", '"UNSPECIFIED"'),
        ("ENABLED", '"ENABLED"'),
        ("DISABLED", '"DISABLED"'),
    ]
    # a oneof whose member is written: the other optimizers are not offered
    items = await completion(editor, uri, 5, line.index('"adagrad"'))  # a key goes there
    labels = [item.label for item in items]
    assert "learningRate" in labels and "adam" not in labels and "adagrad" not in labels


async def test_completion_in_yaml_block_and_flow(editor: Editor, tmp_path: Path) -> None:
    text = (
        "optimizer:\n"
        "  adagrad: {initial_accumulator_value: 0.1, }\n"
        "  \n"
        "tables:\n"
        "  - name: a\n"
        "    dim: 8\n"
        "    comb\n"
    )
    uri = open_doc(editor, tmp_path / "typing.spec.yaml", text, "yaml")
    items = await completion(editor, uri, 6, 8)
    labels = [item.label for item in items]
    assert "combiner" in labels and "name" not in labels and "dim" not in labels
    combiner = next(item for item in items if item.label == "combiner")
    assert edit_of(combiner) == ("combiner: ", 6, 4, 6, 8)
    # in the flow mapping: the Adagrad's fields not written yet
    items = await completion(editor, uri, 1, 44)
    assert "initial_accumulator_value" not in [item.label for item in items]
    # the optimizer's fields: the oneof's member (adagrad) is written, so none of its others
    labels = [item.label for item in await completion(editor, uri, 2, 2)]
    assert "learning_rate" in labels and "adam" not in labels and "adagrad" not in labels


# -- bad documents ------------------------------------------------------------------------------
_BAD_DOCUMENTS = {
    "half.pbtxt": 'table_descriptor {\n  name: "vid',
    "garbage.pbtxt": bytes(range(256)).decode("latin-1") * 40,
    "deep.pbtxt": "a {" * 20000,
    "garbage.yaml": "&a [*a, *a]\n" + "{" * 5000,
    "garbage.json": '{"table_descriptor": [' * 3000,
    "model.pb": "\x00\x01binary\ufffd",
    "huge.pbtxt": large_config(4000),
}


# Each case named by its file: a test id holding the text would go into PYTEST_CURRENT_TEST,
# which the server inherits, and a variable that long is refused (E2BIG) when it starts.
@pytest.mark.parametrize(("name", "text"), list(_BAD_DOCUMENTS.items()), ids=list(_BAD_DOCUMENTS))
@pytest.mark.slow
async def test_bad_documents_never_crash_the_server(
    editor: Editor, tmp_path: Path, name: str, text: str
) -> None:
    uri = open_doc(editor, tmp_path / name, text)
    await diagnostics(editor, uri, 1)
    middle = lsp.Position(0, 5)
    await editor.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), middle))
    await editor.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), middle)
    )
    await editor.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), lsp.Range(middle, middle), lsp.CodeActionContext([])
        )
    )
    # Still serving: a good document next is linted as ever.
    good = open_doc(editor, tmp_path / "good.pbtxt", CLEAN.replace("dimension: 16", "dimension: 0"))
    assert [d.code for d in await diagnostics(editor, good, 1)] == ["TE403"]


async def test_without_the_extra_the_command_says_how_to_get_it() -> None:
    code = (
        "import sys\n"
        "sys.modules['pygls'] = None\n"  # as if not installed
        "from tpuemb_cli.cli.console import run\n"
        "sys.argv = ['tpuemb', 'server']\n"
        "run()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "tpuemb: error: `tpuemb server` needs the language-server libraries (pygls, "
        "lsprotocol): pip install 'tpuemb[server]'\n",
    )
