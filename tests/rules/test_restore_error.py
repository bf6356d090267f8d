"""TE951 restore-error: a variable whose shape changed."""

from pathlib import Path

import pytest

from tests.diff_rules import diff_of, kinds
from tests.helpers import CLEAN


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_a_new_dimension_fails_the_restore(tmp_path: Path) -> None:
    result = diff_of(tmp_path, CLEAN.replace("dimension: 16", "dimension: 32"))
    assert result.exit_code == 1
    assert kinds(result) == [("TE951", "restore-error", "table_descriptor[0].dimension")]


def test_acknowledged_on_its_line_it_passes_the_gate(tmp_path: Path) -> None:
    new = CLEAN.replace(
        "dimension: 16", "dimension: 32  # tpuemb: ignore[restore-error] retrained from scratch"
    )
    result = diff_of(tmp_path, new)
    assert (result.exit_code, kinds(result)) == (0, [])
