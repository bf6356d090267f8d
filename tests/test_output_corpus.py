"""tools/output_corpus.py round-trips: a corpus recorded on a few fixtures compares clean, and a
changed output is reported (exit 1) with a diff naming the invocation."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
FILES = ("examples/recommender.spec.yaml", "tests/data/tf-rewrite/empty_input_shape.pbtxt")


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("output_corpus", REPO / "tools/output_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["output_corpus"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tool(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    # The recorder chdirs to the repository and drops the environment that picks a format:
    # done here under monkeypatch, so the test leaves both as it found them.
    monkeypatch.chdir(REPO)
    for variable in ("TPUEMB_FORMAT", "TPUEMB_JOBS", "TPUEMB_DEBUG", "GITHUB_ACTIONS", "COLUMNS"):
        monkeypatch.delenv(variable, raising=False)
    return _tool()


def _record(tool: ModuleType, out: Path) -> None:
    only = [argument for name in FILES for argument in ("--only", name)]
    assert tool.main(["record", str(out), "--jobs", "1", *only]) == 0


@pytest.mark.slow
def test_a_recorded_corpus_compares_clean_and_records_the_same_twice(
    tool: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(tool, tmp_path / "one.json")
    _record(tool, tmp_path / "two.json")
    assert (tmp_path / "one.json").read_bytes() == (tmp_path / "two.json").read_bytes()
    corpus = json.loads((tmp_path / "one.json").read_text())
    commands = {entry["args"][0] for entry in corpus["invocations"]}
    assert commands == {"check", "explain", "convert", "diff", "compile"}
    capsys.readouterr()
    assert tool.main(["compare", str(tmp_path / "one.json"), "--jobs", "1"]) == 0
    assert capsys.readouterr().out == ""


def test_a_changed_output_is_reported(
    tool: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _record(tool, tmp_path / "corpus.json")
    corpus = json.loads((tmp_path / "corpus.json").read_text())
    changed = next(e for e in corpus["invocations"] if e["args"][:2] == ["explain", FILES[0]])
    changed["stdout"] = changed["stdout"].replace("\n", "\nan extra line\n", 1)
    changed["exit"] = 7
    (tmp_path / "corpus.json").write_text(json.dumps(corpus))
    capsys.readouterr()
    assert tool.main(["compare", str(tmp_path / "corpus.json"), "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"=== tpuemb explain {FILES[0]}\nexit code: 7 -> 0\n")
    assert "-an extra line" in out
    assert out.count("===") == 1


def test_map_fields_are_compared_sorted(tool: ModuleType) -> None:
    first = b'{"node": [{"attr": {"b": {"i": 1}, "a": {"s": "x"}}}]}'
    second = b'{"node": [{"attr": {"a": {"s": "x"}, "b": {"i": 1}}}]}'
    assert tool._maps_sorted(first, "json") == tool._maps_sorted(second, "json")
    assert tool._maps_sorted(b'{"table": [1]}', "json") == b'{"table": [1]}'
