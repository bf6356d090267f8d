"""`check`'s exit codes are what its table says (issue 38, point 5: the table said a directory
with no configs exits 2, while one of other files exited 0). Each row's cases, run; and the
table's rows, read from the documentation, name each case tested here."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main

ROOT = Path(__file__).resolve().parent.parent
CLEAN = str(ROOT / "examples" / "recommender.pbtxt")
MISTAKES = str(ROOT / "examples" / "mistakes" / "common_mistakes.pbtxt")


def _table() -> dict[str, str]:
    """The exit-code table's rows (code -> meaning), from the page that holds it."""
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text()
        if "### Exit codes" in text or "## Exit codes" in text:
            section = text.split("Exit codes", 1)[1]
            rows = [line for line in section.splitlines() if line.startswith("| ")][1:4]
            return {row.split("|")[1].strip(): row.split("|")[2] for row in rows}
    raise AssertionError("no exit-code table in README.md or docs/")


def _code(tmp_path: Path, *args: str) -> int:
    return CliRunner().invoke(main, ["check", *args]).exit_code


def test_the_table_names_each_case_tested() -> None:
    table = _table()
    assert set(table) == {"0", "1", "2"}
    for phrase in ("no finding at the fail level", "nothing to check", "`--exit-zero`"):
        assert phrase in table["0"]
    for phrase in ("at least one finding", "does not parse", "`--diff`", "--exit-non-zero-on-fix"):
        assert phrase in table["1"]
    for phrase in ("bad option", "unknown `--type`", "configuration error", "missing", "too large"):
        assert phrase in table["2"]
    assert "directory with no configs" not in table["2"]


def test_0(tmp_path: Path) -> None:
    assert _code(tmp_path, CLEAN) == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    others = tmp_path / "others"
    others.mkdir()
    (others / "NOTES.md").write_text("notes\n")
    (others / "package.json").write_text('{"name": "x"}\n')
    assert _code(tmp_path, str(empty)) == 0
    assert _code(tmp_path, str(others)) == 0
    assert _code(tmp_path, "--exit-zero", MISTAKES) == 0


def test_1(tmp_path: Path) -> None:
    assert _code(tmp_path, MISTAKES) == 1
    broken = tmp_path / "broken.pbtxt"
    broken.write_text("table_descriptor { name: \n")
    assert _code(tmp_path, str(broken)) == 1
    from tests.test_fix import BEFORE

    fix = tmp_path / "fix.pbtxt"
    fix.write_text(BEFORE)
    assert _code(tmp_path, "--diff", str(fix)) == 1
    assert _code(tmp_path, "--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", str(fix)) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--format", "xml", CLEAN],  # a bad option
        ["--type", "NoSuchType", CLEAN],  # an unknown --type
        ["missing.pbtxt"],  # missing
        ["--max-file-size", "10", CLEAN],  # too large
        ["/dev/null/x.pbtxt"],  # not a file
    ],
)
def test_2(tmp_path: Path, args: list[str]) -> None:
    assert _code(tmp_path, *args) == 2


def test_2_for_a_configuration_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".tpuemb.toml").write_text('selectt = ["TE1"]\n')
    (tmp_path / "c.pbtxt").write_text(Path(CLEAN).read_text())
    monkeypatch.chdir(tmp_path)
    assert _code(tmp_path, "c.pbtxt") == 2
