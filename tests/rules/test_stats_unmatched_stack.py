"""TE613 stats-unmatched-stack: statistics of stacks the document has not, and stacks without
statistics; none when they name the same stacks; the settings' `stats` read relative to the
configuration, and an unreadable one the configuration's error (exit 2)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.jax_specs import STACKED, check
from tests.measured_stats import stats
from tpuemb_cli.cli import main


def test_the_same_stacks_are_quiet(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video_user=(200, 10), ads=(200, 10))
    code, stdout, _, _ = check(tmp_path, STACKED, "--stats", str(folder), "--select", "TE613")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_other_stacks_and_stacks_without_statistics(tmp_path: Path) -> None:
    folder = stats(tmp_path / "s", video=(200, 10), user=(5, 5), ads=(200, 10))
    code, stdout, _, path = check(tmp_path, STACKED, "--stats", str(folder), "--select", "TE613")
    assert stdout.replace(str(path), "PATH").replace(str(folder), "S").splitlines()[0] == (
        "PATH:1:1: TE613 [warning] the statistics (S) holds 2 stacks this document has none "
        "of: `user`, `video`; and holds nothing for 1 stack of it: `video_user`, whose limits "
        "are not checked against their input"
    )
    assert code == 0


def test_the_settings_key_relative_to_the_configuration(tmp_path: Path) -> None:
    stats(tmp_path / "measured", video_user=(300, 10), ads=(200, 10))
    (tmp_path / "pyproject.toml").write_text('[tool.tpuemb]\nstats = "measured"\n')
    code, stdout, _, _ = check(tmp_path, STACKED, "--select", "TE611", "--select", "TE613")
    assert code == 1 and "TE611" in stdout and "TE613" not in stdout
    (tmp_path / "pyproject.toml").write_text('[tool.tpuemb]\nstats = "missing"\n')
    result = CliRunner().invoke(main, ["check", str(tmp_path / "stacked.pbtxt")])
    assert result.exit_code == 2
    assert "pyproject.toml:2:1: `stats`: " in result.stderr
    assert "missing: cannot be read" in result.stderr


def test_a_bad_option_is_a_usage_error(tmp_path: Path) -> None:
    _, _, _, path = check(tmp_path, STACKED)
    for option, value in (("--stats", str(tmp_path / "nope")), ("--stats-headroom", "0.9")):
        result = CliRunner().invoke(main, ["check", option, value, str(path)])
        assert result.exit_code == 2 and f"Invalid value for '{option}'" in result.stderr
