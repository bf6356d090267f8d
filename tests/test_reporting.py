"""`check` reports as ruff does (issue 22, point 9): `[*]` on what `--fix` fixes, the fix
summary, the hint at hidden unsafe fixes, `--diff`'s "Would fix", `--quiet`, `--statistics`,
and `.` as the default path. Whole outputs, on the shipped mistakes file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

MISTAKES = (Path(__file__).parent.parent / "examples/mistakes/common_mistakes.pbtxt").read_text()


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def mistakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "m.pbtxt"
    path.write_text(MISTAKES)
    return path


def _codes_marked(stdout: str) -> list[tuple[str, bool]]:
    """(code, marked [*]) of each concise finding line."""
    found = []
    for line in stdout.splitlines():
        if ": TE" in line:
            rest = line.split(": ", 1)[1]
            found.append((rest.split(" ")[0], rest.split(" ")[1] == "[*]"))
    return found


def test_fixable_findings_are_marked_and_counted_with_the_hidden_unsafe_fix(
    mistakes: Path,
) -> None:
    result = invoke("check", "--format", "concise", "m.pbtxt")
    assert result.exit_code == 1
    assert _codes_marked(result.stdout) == [
        ("TE301", False),  # its fix is unsafe: not applied by --fix, so not marked
        ("TE406", False),
        ("TE202", False),
        ("TE102", True),
        ("TE305", True),
        ("TE407", False),
    ]
    assert result.stdout.splitlines()[-2:] == [
        "Found 5 errors, 1 warning in 1 file (1 file checked).",
        "[*] 2 findings fixable with `--fix` (1 hidden fix can be enabled with `--unsafe-fixes`).",
    ]
    # With --unsafe-fixes (and --diff, which writes nothing), the unsafe one is fixable too.
    full = invoke("check", "--format", "full", "--unsafe-fixes", "--diff", "m.pbtxt")
    assert full.stderr == "Would fix 3 findings.\n"


def test_the_full_format_marks_them_too(mistakes: Path) -> None:
    result = invoke("check", "--format", "full", "m.pbtxt")
    headers = [line for line in result.stdout.splitlines() if line.startswith("TE")]
    assert headers[3].startswith("TE102 [*] [error] dynamic-tag-gap: ")
    assert headers[0].startswith("TE301 [error] reversed-clipping-range: ")


def test_after_fix_the_summary_says_fixed_and_remaining(mistakes: Path) -> None:
    result = invoke("check", "--format", "concise", "--fix", "m.pbtxt")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-2:] == [
        "Found 6 findings (2 fixed, 4 remaining: 4 errors); 1 file checked.",
        "No fixes available (1 hidden fix can be enabled with `--unsafe-fixes`).",
    ]
    assert result.stderr == "tpuemb: fixed 1 file\n"


def test_diff_says_what_it_would_fix(mistakes: Path) -> None:
    result = invoke("check", "--diff", "m.pbtxt")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/m.pbtxt\n+++ b/m.pbtxt\n")
    assert result.stderr == (
        "Would fix 2 findings (1 additional fix available with `--unsafe-fixes`).\n"
    )
    mistakes.write_text(MISTAKES.replace("learning_rate { dynamic { tag: 2 } }\n", ""))
    clean = invoke("check", "--diff", "--select", "TE1", "m.pbtxt")
    assert (clean.exit_code, clean.stdout, clean.stderr) == (0, "", "No findings would be fixed.\n")


def test_quiet_prints_the_findings_only(mistakes: Path) -> None:
    result = invoke("check", "--format", "concise", "-q", "m.pbtxt")
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 6
    assert "Found" not in result.stdout
    fixed = invoke("check", "--format", "concise", "--quiet", "--fix", "m.pbtxt")
    assert fixed.stderr == ""
    assert len(fixed.stdout.splitlines()) == 4
    clean = invoke("check", "--format", "concise", "-q", "--select", "TE9", "m.pbtxt")
    assert (clean.exit_code, clean.stdout) == (0, "")
    diff = invoke("check", "-q", "--diff", "m.pbtxt")
    assert diff.stderr == ""


def test_statistics_counts_per_rule_with_marks(mistakes: Path) -> None:
    result = invoke("check", "--statistics", "m.pbtxt")
    assert result.stdout == (
        "    1  TE102  [*] dynamic-tag-gap\n"
        "    1  TE202      adam-beta-out-of-range\n"
        "    1  TE301  [-] reversed-clipping-range\n"
        "    1  TE305  [*] ineffective-weight-decay-multiplier\n"
        "    1  TE406      unused-table\n"
        "    1  TE407      table-id-out-of-range\n"
    )


def test_no_path_checks_the_current_directory(mistakes: Path) -> None:
    result = invoke("check", "--format", "concise")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("m.pbtxt:10:5: TE301 [error]")
    assert "(1 file checked)" in result.stdout


def test_output_file_with_diff_or_add_suppressions_is_a_usage_error(mistakes: Path) -> None:
    for flag in ("--diff", "--add-suppressions"):
        result = invoke("check", flag, "--format", "sarif", "--output-file", "r.sarif", "m.pbtxt")
        assert result.exit_code == 2
        assert f"--output-file writes a report, which {flag} does not print" in result.stderr
        assert not Path("r.sarif").exists()
    assert mistakes.read_text() == MISTAKES


def test_a_diff_summary_never_says_no_changes_over_a_pair_not_compared() -> None:
    # Issue 36 review: "No changes (0 file pairs compared; 1 ... could not be compared)" on exit 2.
    from tpuemb_cli.formatters import Report, summary

    def said(compared: int, uncompared: int) -> str:
        return summary(Report([], compared, unreadable=uncompared, command="diff"))

    assert said(0, 1) == "Nothing compared (1 file pair could not be compared)."
    assert said(2, 1) == "No changes (2 file pairs compared; 1 file pair could not be compared)."
    assert said(3, 0) == "No changes (3 file pairs compared)."
