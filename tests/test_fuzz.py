"""Hostile input, generated: whatever the bytes, loading and linting never raise, and the CLI
exits 0, 1 or 2 with no traceback and output that stays valid in its format.

The budget is bounded for CI (a few hundred examples per property); `make fuzz` (atheris) is the
long-running, coverage-guided counterpart.
"""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tpuemb_cli.cli import main
from tpuemb_cli.engine import Engine
from tpuemb_cli.load import load_bytes, text_tokenizer
from tpuemb_cli.load.source import SourceMap
from tpuemb_cli.load.text_parser import parse_text
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

from .helpers import DATA, TF_FIXTURES

SEEDS = [
    path.read_bytes()
    for path in sorted(TF_FIXTURES.glob("*/*.pb*")) + sorted((DATA / "specs").glob("*.yaml"))
    if path.stat().st_size < 20_000
]
NAMES = ["c.pbtxt", "c.json", "c.pb", "c.yaml", "stdin", "saved_model.pb"]
TOKENS = [
    b"{",
    b"}",
    b"<",
    b">",
    b"[",
    b"]",
    b":",
    b",",
    b";",
    b'"',
    b"'",
    b"\\",
    b"#",
    b"\n",
    b"\r\n",
    b"table_descriptor",
    b"optimization_parameters",
    b"learning_rate",
    b"dynamic",
    b"tag",
    b"node",
    b"attr",
    b"key",
    b"value",
    b"mode",
    b"TRAINING",
    b"nan",
    b"-inf",
    b"1e999",
    b"0x7f",
    b"-0",
    b"3000000000",
    b"\x00",
    b"\xff",
    b"\xef\xbb\xbf",
    b"null",
    b"true",
    b"&a",
    b"*a",
    b"!!python/object",
    b'"tableDescriptor"',
    b"tables",
    b"- ",
    b"  ",
]
FAST = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ENGINE = Engine()


def _lint(data: bytes, name: str) -> None:
    ENGINE.lint(load_bytes(data, name))


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@FAST
@given(st.sampled_from(SEEDS), st.data(), st.sampled_from(NAMES))
def test_mutated_fixtures_never_raise(seed: bytes, data: st.DataObject, name: str) -> None:
    mutated = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 6))):
        if not mutated:
            break
        at = data.draw(st.integers(0, len(mutated) - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert", "truncate"]))
        if action == "flip":
            mutated[at] ^= 1 << data.draw(st.integers(0, 7))
        elif action == "cut":
            del mutated[at : at + data.draw(st.integers(1, 64))]
        elif action == "insert":
            mutated[at:at] = data.draw(st.sampled_from(TOKENS))
        else:
            del mutated[at:]
    _lint(bytes(mutated), name)


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@FAST
@given(st.lists(st.sampled_from(TOKENS), max_size=80), st.sampled_from(NAMES))
def test_token_soup_never_raises(tokens: list[bytes], name: str) -> None:
    _lint(b" ".join(tokens), name)


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@FAST
@given(st.lists(st.sampled_from(TOKENS), max_size=80))
def test_text_parsed_in_chunks_or_with_late_positions_is_the_same(tokens: list[bytes]) -> None:
    # A large text file is tokenized a chunk at a time (a chunk of one match takes that path
    # on every input), and positions are found after linting, by a partial second parse.
    data = b" ".join(tokens)
    text = data.decode("utf-8", errors="replace")
    whole = parse_text(text, TPUEmbeddingConfiguration())
    document = load_bytes(data, "c.pbtxt")
    findings = ENGINE.lint(document)  # positions from a second, partial parse
    if document.text is not None:
        every = parse_text(document.text, TPUEmbeddingConfiguration()).spans
        full = document._replace(source_map=SourceMap(document.text, every))
        assert ENGINE.lint(full) == findings
    with mock.patch.object(text_tokenizer, "_CHUNK", 1):
        chunked = parse_text(text, TPUEmbeddingConfiguration())
    assert (chunked.spans, chunked.problems, chunked.comments) == (
        whole.spans,
        whole.problems,
        whole.comments,
    )


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@FAST
@given(st.binary(max_size=400), st.sampled_from(NAMES))
def test_random_bytes_never_raise(data: bytes, name: str) -> None:
    _lint(data, name)


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(st.sampled_from(TOKENS), max_size=40),
    st.sampled_from(["c.pbtxt", "c.json"]),
    st.sampled_from(["json", "sarif", "concise", "github", "json-lines"]),
)
def test_cli_exit_codes_and_output_stay_valid(tokens: list[bytes], name: str, fmt: str) -> None:
    result = CliRunner().invoke(
        main, ["check", "-", "--stdin-filename", name, "--format", fmt], input=b" ".join(tokens)
    )
    assert result.exit_code in (0, 1, 2)
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    if fmt in ("json", "sarif"):
        json.loads(result.stdout)
    if fmt == "json-lines":
        for line in result.stdout.splitlines():
            json.loads(line)


def test_deep_nesting_in_every_format(tmp_path: Path) -> None:
    inputs = {
        "t.pbtxt": b"table_descriptor { optimization_parameters { " * 3000,
        "j.json": b'{"a": ' * 5000 + b"1" + b"}" * 5000,
        "y.yaml": b"[" * 5000 + b"]" * 5000,
        "b.pb": b"\x0a\x02" * 100_000,
    }
    for name, data in inputs.items():
        (tmp_path / name).write_bytes(data)
        # --type: the loaders' depth limits, not the recogniser, are under test here (without it
        # these are not TPU embedding documents: TE009, tested below).
        kind = "EmbeddingSpec" if name.endswith(".yaml") else "TPUEmbeddingConfiguration"
        args = ["check", "--format", "json", "--type", kind, str(tmp_path / name)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1, (name, result.output)
        if name != "t.pbtxt":  # the text one starts as a config does: it is one, broken
            plain = CliRunner().invoke(main, ["check", "--format", "json", str(tmp_path / name)])
            assert [f["rule"] for f in json.loads(plain.stdout)["findings"]] == ["TE009"]
        (finding,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "TE001"]
        assert finding["file"].endswith(name)
