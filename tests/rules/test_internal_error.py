"""TE010 internal-error: a bug in tpuemb on one file is a finding on that file; the other rules and
the other files are still reported (in workers too), and the run exits 2."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.helpers import CLEAN
from tpuemb_cli import lint_string
from tpuemb_cli.cli import main
from tpuemb_cli.rules import BY_CODE, load

# CLEAN with two tables named "boom": TE402 duplicate-table-name would fire on it, and the
# broken rule below raises on it instead.
BOOM = CLEAN.replace('name: "video"', 'name: "boom"') + CLEAN[: CLEAN.index("mode:")].replace(
    'name: "video"', 'name: "boom"'
)
RAISED_AT = 0  # the line of the `raise` below, set by the fixture


@pytest.fixture
def broken_rule(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """TE402's check raises on a config with a table named "boom" (and works on the others)."""
    global RAISED_AT
    module: Any = importlib.import_module(BY_CODE["TE402"].module)
    original = module.check_config

    def check_config(config: Any) -> Any:
        if any(table.name == "boom" for table in config.table_descriptor):
            raise ValueError("the rule broke")
        yield from original(config)

    RAISED_AT = check_config.__code__.co_firstlineno + 2
    monkeypatch.setattr(module, "check_config", check_config)
    load.cache_clear()
    yield
    monkeypatch.undo()
    load.cache_clear()


def _message() -> str:
    return (
        "internal error in rule TE402 (duplicate-table-name): ValueError: the rule broke "
        f"(at test_internal_error.py:{RAISED_AT})"
    )


def test_a_failing_rule_is_a_finding_and_the_other_rules_still_run(broken_rule: None) -> None:
    findings = lint_string(BOOM, "boom.pbtxt")
    crash = [f for f in findings if f.rule == "TE010"]
    assert [(f.name, f.message, f.severity.name, f.path) for f in crash] == [
        ("internal-error", _message(), "ERROR", ())
    ]
    assert crash[0].fix.startswith("this is a bug in tpuemb: please report it")
    # The other rules ran: the second table has no feature (TE406).
    assert "TE406" in {f.rule for f in findings}
    assert "TE402" not in {f.rule for f in findings}


def test_the_other_files_are_reported_and_the_run_exits_2(
    broken_rule: None, tmp_path: Path
) -> None:
    (tmp_path / "a.pbtxt").write_text(CLEAN.replace("num_hosts: 1", "num_hosts: 0"))
    (tmp_path / "b.pbtxt").write_text(BOOM)
    (tmp_path / "c.pbtxt").write_text(CLEAN)
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert result.stdout.splitlines() == [
        f"{tmp_path / 'a.pbtxt'}:12:1: TE502 [error] `num_hosts` is 0 (or not set); the config "
        "needs at least one of the hosts it runs on",
        f"{tmp_path / 'b.pbtxt'}: TE010 [error] {_message()}",
        f'{tmp_path / "b.pbtxt"}:15:1: TE406 [error] no feature uses table 1 ("boom") (no '
        "`feature_descriptor` has `table_id: 1`)",
        "Found 3 errors in 2 files (3 files checked).",
    ]
    assert result.stderr == ""


def test_tpuemb_debug_prints_the_traceback(
    broken_rule: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "b.pbtxt").write_text(BOOM)
    monkeypatch.setenv("TPUEMB_DEBUG", "1")
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "tpuemb: internal error in rule TE402 (duplicate-table-name):\nTraceback"
    )
    assert result.stderr.endswith("ValueError: the rule broke\n")


def test_it_cannot_be_selected_or_ignored_away(broken_rule: None, tmp_path: Path) -> None:
    path = tmp_path / "b.pbtxt"
    path.write_text(BOOM)
    for options in (["--ignore", "TE010"], ["--select", "TE4"], ["--select", "TE402"]):
        result = CliRunner().invoke(main, ["check", "--format", "concise", *options, str(path)])
        assert result.exit_code == 2, options
        assert f"{path}: TE010 [error] {_message()}" in result.stdout.splitlines(), options


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_in_workers_too(broken_rule: None, tmp_path: Path) -> None:
    # 81 files: two workers with --jobs 2; the broken file is in the forked worker's share.
    for index in range(80):
        (tmp_path / f"m{index:02}.pbtxt").write_text(CLEAN)
    (tmp_path / "z_boom.pbtxt").write_text(BOOM)
    result = CliRunner().invoke(main, ["check", "--format", "concise", "-j", "2", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [
        f"{tmp_path / 'z_boom.pbtxt'}: TE010 [error] {_message()}",
        f'{tmp_path / "z_boom.pbtxt"}:15:1: TE406 [error] no feature uses table 1 ("boom") (no '
        "`feature_descriptor` has `table_id: 1`)",
        "Found 2 errors in 1 file (81 files checked).",
    ]


def test_a_failing_loader_is_a_finding_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tpuemb_cli.load as load_package

    original = load_package.load_input

    def load_input(data: bytes, name: str, *args: Any) -> Any:
        if name.endswith("bad.pbtxt"):
            raise RuntimeError("the loader broke")
        return original(data, name, *args)

    monkeypatch.setattr(load_package, "load_input", load_input)
    (tmp_path / "bad.pbtxt").write_text(CLEAN)
    (tmp_path / "good.pbtxt").write_text(CLEAN.replace("num_hosts: 1", "num_hosts: 0"))
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(tmp_path)])
    assert result.exit_code == 2
    first, *rest = result.stdout.splitlines()
    assert first.startswith(
        f"{tmp_path / 'bad.pbtxt'}: TE010 [error] internal error while loading the file: "
        "RuntimeError: the loader broke (at test_internal_error.py:"
    )
    assert any("good.pbtxt" in line and "TE502" in line for line in rest)


def test_near_misses(tmp_path: Path) -> None:
    # No bug, no finding: a clean file passes, and a broken one is a syntax error, not this.
    assert not [f for f in lint_string(BOOM, "boom.pbtxt") if f.rule == "TE010"]
    (tmp_path / "broken.pbtxt").write_text("table_descriptor {")
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(tmp_path)])
    assert result.exit_code == 1
    assert "TE001" in result.stdout and "TE010" not in result.stdout
