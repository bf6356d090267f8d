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
        "  stats = none",
        "  stats-headroom = 1.5",
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


def _config(tmp_path: Path) -> Path:
    from tests.test_fix import BEFORE

    path = tmp_path / "model.pbtxt"
    path.write_text(BEFORE)
    return path


def test_fixable_and_unfixable_choose_which_fixes_apply(tmp_path: Path) -> None:
    path = _config(tmp_path)
    before = path.read_text()
    only = CliRunner().invoke(main, ["check", "--fix", "--fixable", "TE209", str(path)])
    assert only.exit_code == 1
    after = path.read_text()
    assert "allow_zero_accumulator" in before and "allow_zero_accumulator" not in after
    assert "tag: 2" in after  # TE102's fix not applied
    # Not fixable in this run: not marked, not counted.
    path.write_text(before)
    listed = CliRunner().invoke(
        main,
        ["check", "--format", "concise", "--unfixable", "TE1", "--unfixable", "TE9", str(path)],
    )
    lines = listed.stdout.splitlines()
    assert not any(("TE102" in line or "TE902" in line) and "[*]" in line for line in lines)
    assert any("TE209 [*]" in line for line in lines)
    assert "[*] 2 findings fixable with `--fix`" in listed.stdout
    bad = CliRunner().invoke(main, ["check", "--fixable", "TE0X", str(path)])
    assert bad.exit_code == 2 and "'TE0X' names no rule" in bad.stderr


def test_show_fixes_lists_the_fixes_made_by_file_and_rule(tmp_path: Path) -> None:
    path = _config(tmp_path)
    result = CliRunner().invoke(main, ["check", "--fix", "--show-fixes", str(path)])
    assert result.stderr.splitlines() == [
        "tpuemb: fixed 1 file",
        "Fixed 4 findings:",
        f"- {path}:",
        "    1 \u00d7 TE102 (dynamic-tag-gap)",
        "    1 \u00d7 TE209 (deprecated-allow-zero-accumulator)",
        "    1 \u00d7 TE305 (ineffective-weight-decay-multiplier)",
        "    1 \u00d7 TE902 (unused-suppression)",
    ]
    again = CliRunner().invoke(main, ["check", "--fix", "--show-fixes", str(path)])
    assert again.stderr == "No fixes made.\n"


def test_exit_non_zero_on_fix(tmp_path: Path) -> None:
    path = _config(tmp_path)
    # Every finding fixed (the unsafe one too): 0, unless asked to fail on a fix.
    plain = CliRunner().invoke(main, ["check", "--fix", "--unsafe-fixes", str(path)])
    assert plain.exit_code == 0
    path = _config(tmp_path)
    flagged = CliRunner().invoke(
        main, ["check", "--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", str(path)]
    )
    assert flagged.exit_code == 1
    nothing = CliRunner().invoke(main, ["check", "--fix", "--exit-non-zero-on-fix", str(path)])
    assert nothing.exit_code == 0  # nothing left to fix
