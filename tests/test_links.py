"""Links that resolve (issue 38, point 4): an output carries an address only where the package
declares it (`[project.urls]`: `Documentation` for rule pages, `Homepage` for the tool); SARIF
carries the documentation of the rules that have results only; a finding in an archive's member
is located at the archive, the member and its place named in the message."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.rules import docs

EXAMPLES = Path(__file__).parent.parent / "examples"


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_no_output_names_an_address_the_package_does_not_declare() -> None:
    assert docs.project_urls() == {}  # pyproject.toml declares none (yet)
    assert docs.url("TE406", "unused-table") is None and docs.homepage() is None
    for fmt in ("sarif", "github", "json", "full"):
        out = _run("check", "--format", fmt, str(EXAMPLES))
        # Sources quoted in rules' documentation are the libraries' (tensorflow, jax, keras).
        hosts = set(re.findall(r"https?://([^/\s\"')]+)/([^/\s\"')]+)", out))
        ours = {(host, owner) for host, owner in hosts if "tpuemb" in owner.lower()}
        assert ours == set() and "YOUR-ORG" not in out, (fmt, ours)
    log = json.loads(_run("check", "--format", "sarif", str(EXAMPLES)))
    driver = log["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    assert all("helpUri" not in rule for rule in driver["rules"])


def test_sarif_of_the_examples_documents_only_the_rules_with_results() -> None:
    out = _run("check", "--format", "sarif", str(EXAMPLES))
    assert len(out.encode()) < 100_000
    (run,) = json.loads(out)["runs"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert sorted(rules) == sorted({result["ruleId"] for result in run["results"]})
    assert all(rules[result["ruleIndex"]] == result["ruleId"] for result in run["results"])


def test_declared_addresses_are_the_links(monkeypatch: pytest.MonkeyPatch) -> None:
    declared = {
        "documentation": "https://docs.example.org/tpuemb/",
        "homepage": "https://h.example",
    }
    monkeypatch.setattr(docs, "project_urls", lambda: declared)
    assert docs.url("TE406", "unused-table") == (
        "https://docs.example.org/tpuemb/rules/#te406-unused-table"
    )
    log = json.loads(_run("check", "--format", "sarif", str(EXAMPLES / "mistakes")))
    driver: dict[str, Any] = log["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://h.example"
    assert {rule["helpUri"] for rule in driver["rules"]} == {
        f"https://docs.example.org/tpuemb/rules/#{rule['id'].lower()}-{rule['name']}"
        for rule in driver["rules"]
    }


def test_a_finding_in_an_archive_is_located_at_the_archive() -> None:
    archive = "examples/keras/ranking.keras"
    log = json.loads(_run("check", "--format", "sarif", archive))
    (run,) = log["runs"]
    results = run["results"]
    assert results
    for result in results:
        (place,) = result["locations"]
        physical = place["physicalLocation"]
        # The archive, no member: GitHub places the alert on a file the repository holds; the
        # member's lines are not the archive's.
        assert physical == {
            "artifactLocation": {"uri": archive, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 1},
        }
        assert re.match(r"config\.json:1:\d+: ", result["message"]["text"]), result["message"]
    annotations = _run("check", "--format", "github", archive).splitlines()
    assert annotations
    for line in annotations:
        properties, _, message = line.partition("::")[2].partition("::")
        assert properties.split(" ", 1)[1].startswith(f"file={archive},title=TE"), line
        assert re.match(r"config\.json:1:\d+: ", message), line
    # The formats for people keep the member's place as ever.
    assert _run("check", "--format", "concise", archive).startswith(f"{archive}!config.json:1:")
