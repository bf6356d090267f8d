"""A spec's facts are made once per document, by one constructor (`spec.facts.facts_of`), and
passed: the workspace's lint compiles a spec once for every rule and the front end, a re-lint
after a fix makes the fixed document's own, and facts of another spec are refused, never silently
replaced. `check`'s plan and `Workspace.resolve` say a configuration's error in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CLEAN, SPEC
from tpuemb_cli.engine import Engine
from tpuemb_cli.fix.apply import relint, reload
from tpuemb_cli.load import load_bytes
from tpuemb_cli.spec import compiler
from tpuemb_cli.spec.facts import SpecFacts, facts_for, facts_of
from tpuemb_cli.workspace import Linted, Workspace
from tpuemb_cli.workspace.linting import Unsettled


def test_facts_of_a_spec_and_of_no_spec() -> None:
    spec = load_bytes(SPEC.encode(), "s.yaml", "yaml", None)
    facts = facts_of(spec)
    assert facts is not None and facts.spec is spec.message
    assert facts_of(load_bytes(CLEAN.encode(), "c.pbtxt", None, None)) is None
    assert facts_for(spec, facts) is facts


def test_facts_of_another_spec_are_refused() -> None:
    one = load_bytes(SPEC.encode(), "one.yaml", "yaml", None)
    other = load_bytes(SPEC.encode(), "other.yaml", "yaml", None)
    assert other.message is not None
    with pytest.raises(ValueError, match=r"one\.yaml: the facts passed are another spec's"):
        Engine().lint(one, None, SpecFacts(other.message))  # type: ignore[arg-type]


def test_the_workspace_compiles_a_spec_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real = compiler.compile_spec

    def counted(spec: object) -> compiler.Compiled:
        calls.append(spec)
        return real(spec)  # type: ignore[arg-type]

    monkeypatch.setattr(compiler, "compile_spec", counted)
    linted = Workspace(isolated=True).lint_document(SPEC.encode(), "s.spec.yaml", exclude=False)
    assert linted.document is not None and linted.facts is not None
    assert linted.facts.spec is linted.document.message
    assert len(calls) == 1
    assert relint(reload(linted.document, linted.document.text or ""), Engine()) == []
    assert len(calls) == 2  # the re-read document's own facts, once


def test_a_configurations_error_is_said_in_one_place(tmp_path: Path) -> None:
    (tmp_path / ".tpuemb.toml").write_text('selectt = ["TE1"]\n')
    name = str(tmp_path / "model.pbtxt")
    workspace = Workspace()
    unsettled = workspace.settings_or_why(name, on_disk=True)
    assert isinstance(unsettled, Unsettled) and unsettled.config
    assert "`selectt`: unknown key" in unsettled.message
    resolved = workspace.resolve(name, on_disk=True, exclude=True)
    assert isinstance(resolved, Linted) and resolved.error == unsettled.message
