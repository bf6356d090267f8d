"""A spec is compiled (and laid out) once per document, whatever number of rules read it, and
nothing is remembered from one document to the next (issue 23: facts, once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tpuemb_cli import lint_string
from tpuemb_cli.spec import compiler, sparsecore

from .helpers import SPEC

EXAMPLES = Path(__file__).parent.parent / "examples"


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_spec_is_compiled_once_per_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = _counting(monkeypatch, compiler, "compile_spec")
    # Three spec rules and every config rule read what the spec compiles to.
    lint_string(SPEC, name="s.yaml", format="yaml", isolated=True)
    assert len(compiled) == 1
    lint_string(SPEC, name="s.yaml", format="yaml", isolated=True)
    assert len(compiled) == 2  # a new document: compiled again, nothing kept across documents


def test_a_sparsecore_spec_is_laid_out_once_per_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    planned = _counting(monkeypatch, sparsecore, "plan")
    text = (EXAMPLES / "sparsecore" / "dlrm.spec.yaml").read_text()
    findings = lint_string(text, name="dlrm.spec.yaml", format="yaml", isolated=True)
    assert [f.rule for f in findings] == ["TE651"]  # the three layout rules ran
    assert len(planned) == 1
