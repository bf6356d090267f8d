"""`tpuemb server` against what a hostile or careless user puts in a buffer, end to end: a real
server process, driven over stdio by a bare JSON-RPC client (``raw_client``). Nesting past what
the loaders read, a 50 MB line, a text-format file that is no TPU embedding document, commands
with arguments of the wrong shape. Each time: the diagnostics `tpuemb check` gives the same
file, and a server that is still alive, lints what comes next and exits 0 after shutdown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("pygls", reason="the `server` extra (pygls) is not installed")

from tests.helpers import CLEAN
from tests.server.raw_client import RawClient, peak_memory
from tpuemb_cli.cli import main

BROKEN = CLEAN.replace("dimension: 16", "dimension: 0")  # one finding: TE403
# json.loads reads about a thousand levels; this is two hundred times that, in 400 KB.
DEEP_JSON = '{"tableDescriptor":' + "[" * 200_000 + "]" * 200_000 + "}"
DEEP_YAML = "tables: " + "[" * 50_000 + "]" * 50_000


@contextmanager
def started(folder: Path) -> Iterator[RawClient]:
    client = RawClient(folder)
    try:
        client.initialize(folder)
        yield client
    finally:
        client.kill()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    """A server of the test's own: for what must leave it alive, and exiting 0."""
    with started(tmp_path) as client:
        yield client


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawClient]:
    """One server for the module's other tests (its first lint costs seconds of imports); it
    must still exit 0 after them all."""
    with started(tmp_path_factory.mktemp("shared")) as client:
        yield client
        assert client.shutdown_and_exit() == 0


def check_findings(path: Path) -> list[tuple[str, int, int, str]]:
    """What `tpuemb check` reports on ``path``: (code, line, column, message), 0-based, as LSP
    counts them (text as ASCII); a finding on no line is on the first, as the editor shows it."""
    result = CliRunner().invoke(main, ["check", "--format", "json", str(path)])
    report: dict[str, Any] = json.loads(result.stdout)
    return [
        (f["rule"], (f["line"] or 1) - 1, (f["column"] or 1) - 1, f["message"].split("\n")[0])
        for f in report["findings"]
    ]


def found(diagnostics: list[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    """The diagnostics as ``check_findings`` gives findings: the message without the field
    path and help the editor's copy adds."""
    return [
        (
            d.get("code", ""),
            d["range"]["start"]["line"],
            d["range"]["start"]["character"],
            d["message"].split("\n")[0],
        )
        for d in diagnostics
    ]


def still_linting(client: RawClient, tmp_path: Path) -> None:
    """A document opened after the hostile one is linted as ever."""
    uri = (tmp_path / "next.pbtxt").as_uri()
    client.open(uri, BROKEN)
    assert [d["code"] for d in client.diagnostics(uri)] == ["TE403"]


# -- nesting past what the loaders read --------------------------------------------------------
@pytest.mark.slow
def test_deep_json_and_yaml_are_refused_and_the_server_lints_on(
    client: RawClient, tmp_path: Path
) -> None:
    # The JSON's finding once cost its depth squared (22 GB, minutes) on the linter's thread:
    # nothing else was linted, and the kernel killed the server for its memory.
    deep_json = tmp_path / "deep.json"
    deep_json.write_text(DEEP_JSON)
    client.open(deep_json.as_uri(), DEEP_JSON, "json")
    # At the 202nd `[` (0-based: after the 19 characters of `{"tableDescriptor":` and 201 `[`).
    expected = [("TE001", 0, 19 + 201, "the JSON nests deeper than 202 levels")]
    assert found(client.diagnostics(deep_json.as_uri(), timeout=10)) == expected
    assert check_findings(deep_json) == expected
    still_linting(client, tmp_path)
    # YAML is refused at the same depth, where `check` refuses it (300 levels here: PyYAML's
    # scanner takes seconds over a thousand open brackets; 50,000 are in the slow test).
    deep_yaml = tmp_path / "deep.spec.yaml"
    client.open(
        deep_yaml.as_uri(), "tables: [{name: t, dim: " + "[" * 300 + "]" * 300 + "}]", "yaml"
    )
    assert found(client.diagnostics(deep_yaml.as_uri())) == [
        ("TE001", 0, 24 + 199, "the YAML nests deeper than 202 levels")
    ]
    still_linting(client, tmp_path)
    assert client.shutdown_and_exit() == 0


@pytest.mark.slow
def test_a_yaml_buffer_50_000_deep_is_refused_as_check_refuses_it(
    client: RawClient, tmp_path: Path
) -> None:
    path = tmp_path / "deep.spec.yaml"
    path.write_text(DEEP_YAML)
    client.open(path.as_uri(), DEEP_YAML, "yaml")
    expected = [("TE001", 0, 8 + 201, "the YAML nests deeper than 202 levels")]
    assert found(client.diagnostics(path.as_uri())) == expected
    assert check_findings(path) == expected
    still_linting(client, tmp_path)
    assert client.shutdown_and_exit() == 0


@pytest.mark.slow
def test_a_50_mb_line_is_linted_as_check_lints_it(client: RawClient, tmp_path: Path) -> None:
    # Under `check`'s size limit (--max-file-size, 256 MiB), so linted, not refused: a table
    # whose name is 50 MB long, after the deep JSON that once starved the server of memory.
    client.open((tmp_path / "deep.json").as_uri(), DEEP_JSON, "json")
    text = 'table_descriptor { name: "' + "x" * 50_000_000 + '" }'
    uri = (tmp_path / "line.pbtxt").as_uri()
    client.open(uri, text)
    codes = [d["code"] for d in client.diagnostics(uri, timeout=120)]
    assert codes == ["TE403", "TE403", "TE410", "TE501", "TE502", "TE502"]
    still_linting(client, tmp_path)
    peak = peak_memory(client.process.pid)
    assert peak is None or peak < 3 * 2**30, f"{peak / 2**30:.1f} GiB"
    assert client.shutdown_and_exit() == 0


# -- what is no TPU embedding document ---------------------------------------------------------
@pytest.mark.slow
def test_a_text_format_file_that_is_no_document_gets_what_check_reports(
    shared: RawClient, tmp_path: Path
) -> None:
    client = shared
    path = tmp_path / "x.pbtxt"
    path.write_text("a {a {a {}}}")
    client.open(path.as_uri(), "a {a {a {}}}")
    assert found(client.diagnostics(path.as_uri())) == check_findings(path)
    assert [code for code, *_ in check_findings(path)] == ["TE009"]
    # JSON and YAML that are none stay quiet, as check's discovery skips them: an editor opens
    # every package.json.
    package = tmp_path / "package.json"
    client.open(package.as_uri(), '{"name": "web", "version": "1.0.0"}', "json")
    assert client.diagnostics(package.as_uri()) == []


# -- command arguments ---------------------------------------------------------------------------
def execute(client: RawClient, command: str, *arguments: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"command": command}
    if arguments:
        params["arguments"] = list(arguments)
    return client.request("workspace/executeCommand", params)


NAMES_NO_DOCUMENT = {
    "a number": 42,
    "a list": [1, "file:///a.pbtxt"],
    "an object without uri": {"path": "/a.pbtxt"},
    "a textDocument that is no object": {"textDocument": 5},
    "a uri that is no string": {"uri": 5},
    "a path, not a URI": "/tmp/a.pbtxt",
    "null": None,
}


@pytest.mark.parametrize("command", ["tpuemb.printDebugInformation", "tpuemb.fixAll"])
def test_command_arguments_that_name_no_document_are_invalid_params(
    shared: RawClient, tmp_path: Path, command: str
) -> None:
    client = shared
    for shape, argument in NAMES_NO_DOCUMENT.items():
        answer = execute(client, command, argument)
        assert answer.get("error", {}).get("code") == -32602, (shape, answer)
        assert command in answer["error"]["message"]
        assert json.dumps(argument) in answer["error"]["message"]
    two = execute(client, command, "file:///a.pbtxt", "file:///b.pbtxt")
    assert two["error"]["code"] == -32602 and "2 were given" in two["error"]["message"]
    still_linting(client, tmp_path)


def test_command_arguments_that_name_a_document(shared: RawClient, tmp_path: Path) -> None:
    client = shared
    uri = (tmp_path / "model.pbtxt").as_uri()
    client.open(uri, BROKEN)
    client.diagnostics(uri)
    debug = "tpuemb.printDebugInformation"
    for argument in (uri, {"uri": uri}, {"textDocument": {"uri": uri}}):
        text = execute(client, debug, argument)["result"]
        assert f"document {uri}:" in text and "rules enabled" in text
    # Another scheme is a URI all the same (an unsaved buffer), governed by the defaults.
    text = execute(client, debug, "untitled:Untitled-1")["result"]
    assert "document untitled:Untitled-1:\n  configuration file: none" in text
    # No argument: the server alone.
    text = execute(client, debug)["result"]
    assert text.startswith("tpuemb ") and "document " not in text
    # fixAll needs its document.
    nothing = execute(client, "tpuemb.fixAll")
    assert nothing["error"]["code"] == -32602 and "none was given" in nothing["error"]["message"]
    assert execute(client, "tpuemb.fixAll", "untitled:not-open")["result"] is False


def test_an_answer_that_does_not_fit_fails_the_request_instead_of_hanging_it(
    shared: RawClient, tmp_path: Path
) -> None:
    # This client answers the server's workspace/applyEdit with null, not {"applied": ...}:
    # the command once waited for ever on it, and the editor on the command.
    client = shared
    uri = (tmp_path / "mistakes.pbtxt").as_uri()
    text = (
        Path(__file__).parents[2] / "examples" / "mistakes" / "common_mistakes.pbtxt"
    ).read_text()
    client.open(uri, text)
    client.diagnostics(uri)
    answer = client.request(
        "workspace/executeCommand", {"command": "tpuemb.fixAll", "arguments": [uri]}, timeout=10
    )
    assert answer.get("result") is False, answer
    assert any(m.get("method") == "workspace/applyEdit" for m in client.seen)
    still_linting(client, tmp_path)


@pytest.mark.slow
def test_an_answer_that_does_not_fit_is_one_line_in_the_log_not_a_traceback(
    tmp_path: Path,
) -> None:
    # pygls logged the null answer to workspace/applyEdit with some thirty lines of cattrs
    # traceback on standard error, which editors show as the server's log.
    log = tmp_path / "stderr.txt"
    uri = (tmp_path / "mistakes.pbtxt").as_uri()
    text = (
        Path(__file__).parents[2] / "examples" / "mistakes" / "common_mistakes.pbtxt"
    ).read_text()
    with log.open("wb") as stderr:
        client = RawClient(tmp_path, stderr=stderr)
        try:
            client.initialize(tmp_path)
            client.open(uri, text)
            client.diagnostics(uri)
            answer = client.request(
                "workspace/executeCommand",
                {"command": "tpuemb.fixAll", "arguments": [uri]},
                timeout=10,
            )
            assert answer.get("result") is False, answer
            assert client.shutdown_and_exit() == 0
        finally:
            client.kill()
    lines = log.read_text().splitlines()
    assert lines == [
        "tpuemb server: a client message could not be read (ApplyWorkspaceEditResponse: "
        "TypeError: argument of type 'NoneType' is not iterable)"
    ]


def test_a_keras_config_nested_too_deep_is_refused_as_check_refuses_it(
    shared: RawClient, tmp_path: Path
) -> None:
    # A list 550 deep in a layer's `table_stacking`: json.loads reads it, and reading the
    # layer's config once raised RecursionError (TE010, an internal error).
    from tests.keras_config_text import model_text, table

    stacking: object = 0
    for _ in range(550):
        stacking = [stacking]
    text = model_text([table("a")], {"f": 0}, stacking=stacking)
    path = tmp_path / "model" / "config.json"
    path.parent.mkdir()
    path.write_text(text)
    shared.open(path.as_uri(), text, "json")
    expected = check_findings(path)
    assert [(code, message) for code, _, _, message in expected] == [
        ("TE001", "the JSON nests deeper than 202 levels")
    ]
    assert found(shared.diagnostics(path.as_uri())) == expected
