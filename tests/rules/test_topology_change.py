"""TE955 topology-change: hosts, cores, sharding; the checkpoint restores."""

from pathlib import Path

import pytest

from tests.diff_rules import diff_of, kinds
from tests.helpers import CLEAN


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_more_hosts(tmp_path: Path) -> None:
    result = diff_of(tmp_path, CLEAN.replace("num_hosts: 1", "num_hosts: 2"))
    assert (result.exit_code, kinds(result)) == (0, [("TE955", "topology-change", "num_hosts")])


def test_ignored_by_the_command_line(tmp_path: Path) -> None:
    result = diff_of(tmp_path, CLEAN.replace("num_hosts: 1", "num_hosts: 2"), "--ignore", "TE955")
    assert kinds(result) == []
