"""The rule catalog: stable codes, kebab-case names, documentation users can read, tests for all."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tpuemb_cli.rules
from tpuemb_cli.rules import CATALOG, all_rules, find, load
from tpuemb_cli.rules.base import Rule

RULES = all_rules()

SECTIONS = [
    "## What it does",
    "## Why is this bad?",
    "## What TensorFlow does",
    "## Example",
    "## Use instead",
    "## Fix safety",
    "## Options",
    "## References",
]


def test_codes_and_names_are_unique_and_well_formed() -> None:
    codes = [rule.code for rule in RULES]
    names = [rule.name for rule in RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    for rule in RULES:
        assert re.fullmatch(r"TE\d{3}", rule.code), rule.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
        assert rule.module.rsplit(".", 1)[1] == rule.name.replace("-", "_")


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_documentation_has_every_section_in_order(rule: Rule) -> None:
    doc = rule.doc
    positions = [doc.find(section) for section in SECTIONS]
    assert all(p >= 0 for p in positions), [
        s for s, p in zip(SECTIONS, positions, strict=True) if p < 0
    ]
    assert positions == sorted(positions)
    summary = rule.summary
    assert summary and summary.endswith(".") and not summary.startswith("#")
    for section in SECTIONS:
        body = doc.split(section, 1)[1].split("\n## ", 1)[0].strip()
        assert body, f"{rule.code}: empty {section}"
    example = doc.split("## Example", 1)[1].split("## Use instead", 1)[0]
    assert "```pbtxt" in example or "```yaml" in example


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_every_rule_has_its_test_module(rule: Rule) -> None:
    module = Path(__file__).parent / "rules" / f"test_{rule.module.rsplit('.', 1)[1]}.py"
    assert module.exists(), module
    assert rule.code in module.read_text() or rule.name in module.read_text()


def test_find_by_code_or_name() -> None:
    assert find("te101") is find("negative-dynamic-tag") is not None
    assert find("nope") is None


@pytest.mark.parametrize("entry", CATALOG, ids=lambda entry: entry.code)
def test_catalog_entry_says_what_its_module_does(entry: tpuemb_cli.rules.Entry) -> None:
    # The engine trusts the catalog to decide which modules to import; a wrong entry would
    # silently skip a rule, so every field is checked against the module itself.
    rule = load(entry.code)
    runs = tuple(
        kind
        for kind in ("config", "optimizer", "spec", "graph")
        if getattr(rule, f"check_{kind}") is not None
    )
    assert (rule.code, rule.name, rule.severity, rule.fixable, rule.supersedes) == (
        entry.code,
        entry.name,
        entry.severity,
        entry.fixable,
        entry.supersedes,
    )
    assert entry.runs == runs
    assert rule.module == entry.module


def test_every_rule_module_is_in_the_catalog() -> None:
    folder = Path(tpuemb_cli.rules.__file__).parent
    modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    modules -= {"base"}
    assert modules == {entry.module.rsplit(".", 1)[1] for entry in CATALOG}


def test_a_config_run_imports_no_spec_or_graph_rule() -> None:
    # The point of the catalog: start-up pays only for the rules a document can trigger.
    code = (
        "import sys\n"
        "from tpuemb_cli.api import lint_string\n"
        "lint_string('table_descriptor { optimization_parameters { adam {} } }', 'a.pbtxt')\n"
        "print(sorted(m for m in sys.modules if m.startswith('tpuemb_cli.rules.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = {name for name in ast.literal_eval(out) if name.rsplit(".", 1)[1][0] != "_"}
    expected = {e.module for e in CATALOG if {"config", "optimizer"} & set(e.runs)}
    assert loaded - {"tpuemb_cli.rules.base"} == expected
