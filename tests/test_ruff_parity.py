"""The options ruff's users reach for (issue 38, point 6): `--output-format` (ruff's current
name; `--format` kept), `--show-settings`, `rules`/`rule --output-format json`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.rules import RULESET_VERSION, all_rules

EXAMPLES = Path(__file__).parent.parent / "examples"


def test_output_format_is_format() -> None:
    mistakes = str(EXAMPLES / "mistakes")
    by_new = CliRunner().invoke(main, ["check", "--output-format", "json", mistakes])
    by_old = CliRunner().invoke(main, ["check", "--format", "json", mistakes])
    assert by_new.exit_code == by_old.exit_code == 1
    assert by_new.stdout == by_old.stdout and json.loads(by_new.stdout)["findings"]


def test_show_settings_shows_the_configuration_found_and_every_key(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / ".tpuemb.toml").write_text(
        'select = ["TE4"]\nignore = ["TE406"]\ntpu = "v5e"\n'
        '[severity]\nTE407 = "warning"\n[per-file-ignores]\n"legacy/*" = ["TE1"]\n'
    )
    result = CliRunner().invoke(
        main,
        ["check", "--show-settings", str(tmp_path / "configs"), "--keras-backend", "tensorflow"],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"Settings for {tmp_path / 'configs'}:",
        f"  configuration: {tmp_path / '.tpuemb.toml'}",
        '  select = ["TE4"]',
        "  extend-select = []",
        '  ignore = ["TE406"]',
        f"    (enabled: {result.stdout.split('(enabled: ')[1].split(')')[0]})",
        '  severity = {TE407 = "warning"}',
        '  per-file-ignores = {"legacy/*" = ["TE1"]}',
        "  exclude = []",
        '  fail-level = "error"',
        "  require-reason = true",
        "  suppress = [...]  (0 entries)",
        '  tpu = "v5e"',
        '  keras-backend = "tensorflow"',
    ]
    isolated = CliRunner().invoke(main, ["check", "--show-settings", "--isolated", str(tmp_path)])
    assert "configuration: none (the defaults)" in isolated.stdout
    assert f"(enabled: {len(all_rules())} rules)" in isolated.stdout


def test_show_settings_of_a_broken_configuration_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".tpuemb.toml").write_text('select = "TE4\n')
    result = CliRunner().invoke(main, ["check", "--show-settings", str(tmp_path)])
    assert result.exit_code == 2 and "tpuemb: error:" in result.stderr


def test_rules_as_json() -> None:
    listed = json.loads(CliRunner().invoke(main, ["rules", "--output-format", "json"]).stdout)
    assert [rule["code"] for rule in listed] == [rule.code for rule in all_rules()]
    assert listed[0] == {
        "code": "TE001",
        "name": "invalid-syntax",
        "family": "parse",
        "severity": "error",
        "fix": "no",
        "summary": all_rules()[0].summary,
        "ruleset_version": RULESET_VERSION,
    }
    one = json.loads(CliRunner().invoke(main, ["rule", "TE406", "--output-format", "json"]).stdout)
    assert one["name"] == "unused-table" and one["explanation"].startswith("A table that no")
