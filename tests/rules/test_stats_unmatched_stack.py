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


def test_statistics_that_cannot_judge_a_stack_are_said(tmp_path: Path) -> None:
    from tpuemb_cli.load.fdo import StackStats, write_fdo_stats

    folder = tmp_path / "s"
    write_fdo_stats(
        folder,
        {
            # 12 values a row: no multiple of the stack's 8 partitions (another layout's)
            "video_user": StackStats(((300,) * 12,), ((10,) * 12,)),
            # no id counted
            "ads": StackStats(((0,) * 8,), ((0,) * 8,)),
        },
        kind="npz",
    )
    code, stdout, _, _ = check(tmp_path, STACKED, "--stats", str(folder))
    assert "TE611" not in stdout  # nothing judged on counts of another layout
    (line,) = [line for line in stdout.splitlines() if "TE613" in line]
    assert line.endswith(
        "cannot judge stack `video_user`: they count 12 values a row, no multiple of its 8 "
        "partitions (SparseCores): measured for another layout; and cannot judge stack `ads`: "
        "they counted no id of it"
    )
    assert code == 0


def test_a_keras_model_without_a_tpu_says_the_statistics_are_unused(tmp_path: Path) -> None:
    from tpuemb_cli.load.fdo import StackStats, write_fdo_stats

    folder = tmp_path / "s"
    # a v5p-8: 4 devices of 4 SparseCores, 16 partitions
    write_fdo_stats(
        folder,
        {"categories_items_users": StackStats(((300,) + (1,) * 15,), ((10,) * 16,))},
        kind="npz",
    )
    model = str(Path(__file__).parents[2] / "examples" / "keras" / "ranking.keras")
    args = ["check", "--isolated", "--stats", str(folder), "--select", "TE611", "--select"]
    alone = CliRunner().invoke(main, [*args, "TE613", model])
    (line,) = alone.stdout.splitlines()[:-1]
    assert "TE613 [warning] the statistics (" in line
    assert line.endswith(
        "are not used: the layers' stacks (which the statistics are keyed by) "
        "are made for the TPU's devices and SparseCores, and no TPU is named"
    )
    # with a TPU, the stack is judged
    placed = CliRunner().invoke(main, [*args, "TE613", "--tpu", "v5p-8", model])
    assert "TE611" in placed.stdout and "TE613" not in placed.stdout
