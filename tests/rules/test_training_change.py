"""TE954 training-change: the state restores, the run trains differently."""

from pathlib import Path

import pytest

from tests.diff_rules import diff_of, kinds
from tests.helpers import CLEAN


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_a_new_learning_rate(tmp_path: Path) -> None:
    result = diff_of(tmp_path, CLEAN.replace("0.05", "0.1"))
    field = "table_descriptor[0].optimization_parameters.learning_rate.constant"
    assert kinds(result) == [("TE954", "training-change", field)]
    assert result.exit_code == 0
    assert diff_of(tmp_path, CLEAN.replace("0.05", "0.1"), "--fail-on", "TE954").exit_code == 1
