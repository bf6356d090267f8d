"""A fourth front-end, end to end, added as one package and one registration line.

toyemb is a made-up library with a file format of its own (``.toyemb``: ``table NAME rows=N
dim=D`` lines). Its package (tests/data/toy_front_end/, walked through in docs/architecture.md,
"Adding a front-end") goes into a scratch copy of tpuemb_cli as ``frontends/toy/``, and one line
goes into ``frontends/__init__.py``'s ``REGISTERED``; nothing else changes. The copy then
recognises and loads its files with positions, runs its rules in ``check``, shows them in
``explain`` and ``explain --memory`` (with its own option), compares two of them in ``diff``,
documents its rules in ``rule`` and lints them in the language server -- and keeps the layers.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .architecture_guard import violations
from .server.raw_client import RawClient

ROOT = Path(__file__).parent.parent / "tpuemb_cli"
TOY = Path(__file__).parent / "data" / "toy_front_end"
REGISTRATION = '    "tpuemb_cli.frontends.keras",\n'

MODEL = """\
# two tables of toyemb
table user rows=0 dim=16
table item rows=500 dim=4
table broken rows=ten
"""
CLEAN = "table user rows=1000 dim=16\ntable item rows=500 dim=8\n"
WIDER = "table user rows=1000 dim=32\n"


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch tree holding tpuemb_cli with the toy front-end added; the test says which
    files it added and which line it changed."""
    tree = tmp_path_factory.mktemp("toy")
    package = tree / "tpuemb_cli"
    shutil.copytree(ROOT, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(TOY, package / "frontends" / "toy")
    registration = package / "frontends" / "__init__.py"
    text = registration.read_text(encoding="utf-8")
    assert text.count(REGISTRATION) == 1
    registration.write_text(
        text.replace(REGISTRATION, REGISTRATION + '    "tpuemb_cli.frontends.toy",\n'),
        encoding="utf-8",
    )
    return tree


def _files(root: Path) -> set[str]:
    return {
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_toy_is_its_package_and_one_line(copy: Path) -> None:
    package = copy / "tpuemb_cli"
    added = _files(package) - _files(ROOT)
    assert added == {f"frontends/toy/{name}" for name in _files(TOY)}
    changed = [
        name for name in _files(ROOT) if not filecmp.cmp(ROOT / name, package / name, shallow=False)
    ]
    assert changed == ["frontends/__init__.py"]
    before = (ROOT / changed[0]).read_text(encoding="utf-8").splitlines()
    after = (package / changed[0]).read_text(encoding="utf-8").splitlines()
    assert [line for line in after if line not in before] == ['    "tpuemb_cli.frontends.toy",']
    assert len(after) == len(before) + 1


def test_the_toy_keeps_the_layers(copy: Path) -> None:
    assert violations(copy / "tpuemb_cli") == []


def _run(copy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # From the scratch tree: `python -m` puts it first on sys.path, before the checkout.
    return subprocess.run(
        [sys.executable, "-m", "tpuemb_cli", *args],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(copy)},
    )


def test_the_copy_is_what_runs(copy: Path) -> None:
    found = subprocess.run(
        [sys.executable, "-c", "import tpuemb_cli; print(tpuemb_cli.__file__)"],
        cwd=copy,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(copy)},
        check=True,
    )
    assert Path(found.stdout.strip()).parent == copy / "tpuemb_cli"


def test_check_finds_its_mistakes_where_they_are(copy: Path) -> None:
    work = copy / "work"
    work.mkdir(exist_ok=True)
    (work / "model.toyemb").write_text(MODEL, encoding="utf-8")
    (work / "notes.txt").write_text("not a config\n", encoding="utf-8")
    result = _run(copy, "check", "work", "--output-format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    found = {(f["file"], f["rule"], f["field"], f["line"], f["column"]) for f in report["findings"]}
    assert found == {
        ("work/model.toyemb", "TE981", "tables[0].rows", 2, 17),
        ("work/model.toyemb", "TE982", "tables[1].dim", 3, 25),
        ("work/model.toyemb", "TE001", "", 4, 1),
    }, report
    concise = _run(copy, "check", "work/model.toyemb")
    assert "work/model.toyemb:2:17: TE981 [error] table `user` has 0 rows" in concise.stdout
    ignored = _run(copy, "check", "work/model.toyemb", "--ignore", "TE981", "--ignore", "TE001")
    assert ignored.returncode == 0 and "TE982" in ignored.stdout, ignored.stdout


@pytest.mark.slow
def test_explain_and_its_memory_with_its_own_option(copy: Path) -> None:
    (copy / "clean.toyemb").write_text(CLEAN, encoding="utf-8")
    shown = _run(copy, "explain", "clean.toyemb")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (
        "clean.toyemb (toyemb config)\n\ntable user: 1000 rows of 16\ntable item: 500 rows of 8\n"
    )
    memory = _run(copy, "explain", "--memory", "clean.toyemb", "--format", "json")
    assert memory.returncode == 0, memory.stderr
    assert json.loads(memory.stdout)["tables"] == [
        {"name": "user", "bytes": 64000},
        {"name": "item", "bytes": 16000},
    ]
    half = _run(copy, "explain", "--memory", "clean.toyemb", "--toy-dtype", "bfloat16")
    assert half.returncode == 0, half.stderr
    assert "toyemb config, bfloat16" in half.stdout and "32000" in half.stdout
    assert "--toy-dtype" in _run(copy, "check", "--help").stdout
    settings = _run(copy, "check", "clean.toyemb", "--show-settings", "--isolated")
    assert 'toy-dtype = "float32"' in settings.stdout


def test_diff_says_what_does_not_restore(copy: Path) -> None:
    (copy / "old.toyemb").write_text(CLEAN, encoding="utf-8")
    (copy / "new.toyemb").write_text(WIDER, encoding="utf-8")
    result = _run(copy, "diff", "old.toyemb", "new.toyemb", "--output-format", "json")
    assert result.returncode == 1, result.stderr
    kinds = {(f["file"], f["kind"], f["line"]) for f in json.loads(result.stdout)["changes"]}
    assert kinds == {("new.toyemb", "restore-error", 1), ("old.toyemb", "orphaned-state", 2)}
    same = _run(copy, "diff", "old.toyemb", "old.toyemb")
    assert same.returncode == 0, same.stdout + same.stderr


def test_its_rules_are_documented(copy: Path) -> None:
    shown = _run(copy, "rule", "TE981")
    assert shown.returncode == 0 and "toyemb refuses a table of zero rows" in shown.stdout
    listed = _run(copy, "rules", "--output-format", "json")
    assert {"TE981", "TE982"} <= {rule["code"] for rule in json.loads(listed.stdout)}


@pytest.mark.slow
def test_the_language_server_lints_its_files(copy: Path) -> None:
    client = RawClient(copy)
    try:
        client.initialize(copy)
        uri = (copy / "editing.toyemb").as_uri()
        client.open(uri, MODEL, language="toyemb")
        found = {
            (d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
            for d in client.diagnostics(uri)
        }
        assert found == {("TE981", 1, 16), ("TE982", 2, 24), ("TE001", 3, 0)}
        assert client.shutdown_and_exit() == 0
    finally:
        client.kill()
