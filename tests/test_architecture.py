"""The package tree is the flow: model < load < spec < rules, compat < engine < workspace, fix,
formatters < cli, server, api.

tests/architecture_guard.py reads every import (top-level, in functions, under TYPE_CHECKING,
relative, through the package facade, and modules named in strings for importlib) and checks it
against the layer order, with no cycle between modules and no private name taken from another
module. A guard that cannot fail is no guard: each kind of violation is planted in a scratch
copy of the package, and the guard must name it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .architecture_guard import ALLOWED, LAYERS, modules, violations

ROOT = Path(__file__).parent.parent / "tpuemb_cli"


def test_the_package_keeps_its_layers() -> None:
    assert violations(ROOT) == []


def test_every_package_has_a_layer() -> None:
    tops = {path.name for path in ROOT.iterdir() if path.is_dir() and path.name != "__pycache__"}
    tops |= {path.stem for path in ROOT.glob("*.py") if path.stem != "__init__"}
    assert tops <= set(LAYERS), tops - set(LAYERS)


def test_every_allowance_says_why() -> None:
    assert all(reason.strip() for reason in ALLOWED.values())


def _copy(copy: Path) -> None:
    """The package's modules (not the generated code, not the caches), at ``copy``."""
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("__pycache__", "pb", "*.pyc"))


RULE = "rules/config/unused_table.py"
ENGINE = "engine/runner.py"

# Each planted violation: the file it goes in, what is appended, and what the guard must say.
PLANTED = {
    "upward, top level": (RULE, "from tpuemb_cli.engine.runner import Engine\n", "up the chain"),
    "upward, in a function": (
        RULE,
        "def f() -> None:\n    from tpuemb_cli.cli import check\n",
        "imports tpuemb_cli.cli.check (cli) up the chain",
    ),
    "upward, under TYPE_CHECKING": (
        RULE,
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from tpuemb_cli.fix import apply\n",
        "imports tpuemb_cli.fix.apply (fix) up the chain",
    ),
    "upward, relative": (
        RULE,
        "from ...engine import suppressions\n",
        "imports tpuemb_cli.engine.suppressions (engine) up the chain",
    ),
    "upward, through the facade": (
        RULE,
        "from tpuemb_cli import lint_file\n",
        "imports tpuemb_cli.api (api) up the chain",
    ),
    "upward, an importlib string": (
        RULE,
        'import importlib\nimportlib.import_module("tpuemb_cli.cli.check")\n',
        "imports tpuemb_cli.cli.check (cli) up the chain",
    ),
    "a sibling layer": (
        "fix/apply.py",
        "from tpuemb_cli.formatters import concise\n",
        "from its sibling layer",
    ),
    "a private name": (
        ENGINE,
        "from tpuemb_cli.load.recognise import _text\n",
        "imports the private name _text of tpuemb_cli.load.recognise",
    ),
    "a cycle through a lazy import": (
        "model/words.py",
        "def f() -> None:\n    from tpuemb_cli.model import paths\n",
        "",  # completed below: words -> paths needs paths -> words
    ),
}


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_the_guard_catches_each_kind_of_violation(tmp_path: Path, kind: str) -> None:
    copy = tmp_path / "tpuemb_cli"
    _copy(copy)
    file, planted, expected = PLANTED[kind]
    with (copy / file).open("a", encoding="utf-8") as handle:
        handle.write("\n" + planted)
    if kind == "a cycle through a lazy import":
        with (copy / "model/paths.py").open("a", encoding="utf-8") as handle:
            handle.write("\nfrom tpuemb_cli.model import words\n")
        expected = "import cycle between tpuemb_cli.model.paths, tpuemb_cli.model.words"
    found = violations(copy)
    assert any(expected in problem for problem in found), found


def test_a_type_checking_import_is_no_cycle(tmp_path: Path) -> None:
    # It never runs: a cycle through it is no cycle (the layers still apply to it).
    copy = tmp_path / "tpuemb_cli"
    _copy(copy)
    with (copy / "model/words.py").open("a", encoding="utf-8") as handle:
        handle.write("\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n")
        handle.write("    from tpuemb_cli.model import paths\n")
    with (copy / "model/paths.py").open("a", encoding="utf-8") as handle:
        handle.write("\nfrom tpuemb_cli.model import words\n")
    assert violations(copy) == []


def test_an_allowance_that_allows_nothing_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ALLOWED, ("tpuemb_cli.rules", "tpuemb_cli.cli"), "a stale reason")
    assert violations(ROOT) == [
        "allowed, but no such import: ('tpuemb_cli.rules', 'tpuemb_cli.cli')"
    ]


def test_the_guard_reads_every_module() -> None:
    found = modules(ROOT)
    assert "tpuemb_cli.workspace.linting" in found and "tpuemb_cli.cli.check" in found
    assert not any(name.startswith("tpuemb_cli.pb") for name in found)
