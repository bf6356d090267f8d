"""TE952 silent-reinit: a table or a slot that restores nothing."""

from pathlib import Path

import pytest

from tests.diff_rules import diff_of, kinds
from tests.helpers import CLEAN


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_a_renamed_table_starts_from_its_initializer(tmp_path: Path) -> None:
    result = diff_of(tmp_path, CLEAN.replace('name: "video"', 'name: "videos"'))
    assert result.exit_code == 1
    assert ("TE952", "silent-reinit", "table_descriptor[0].name") in kinds(result)


def test_the_code_acknowledges_it_too(tmp_path: Path) -> None:
    new = CLEAN.replace(
        'name: "video"', 'name: "videos"  # tpuemb: ignore[TE952] renamed on purpose'
    )
    result = diff_of(tmp_path, new)
    assert result.exit_code == 0
    # The old name's state is left in the checkpoint: its own kind, on the same line.
    assert {k[:2] for k in kinds(result)} == {("TE953", "orphaned-state")}


def test_one_comment_acknowledges_a_rename(tmp_path: Path) -> None:
    new = CLEAN.replace(
        'name: "video"',
        'name: "videos"  # tpuemb: ignore[silent-reinit, orphaned-state] renamed, retrained',
    )
    result = diff_of(tmp_path, new, "--fail-on", "silent-reinit,orphaned-state")
    assert (result.exit_code, kinds(result)) == (0, [])
