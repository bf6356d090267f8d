"""TE953 orphaned-state: checkpointed state nothing restores."""

from pathlib import Path

import pytest

from tests.diff_rules import diff_of, kinds
from tests.helpers import CLEAN


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_dropping_adagrad_leaves_its_accumulators(tmp_path: Path) -> None:
    result = diff_of(tmp_path, CLEAN.replace("adagrad {}", "stochastic_gradient_descent {}"))
    found = kinds(result)
    assert ("TE953", "orphaned-state") in {k[:2] for k in found}
    assert result.exit_code == 0  # not in the default --fail-on
    assert (
        diff_of(
            tmp_path,
            CLEAN.replace("adagrad {}", "stochastic_gradient_descent {}"),
            "--fail-on",
            "orphaned-state",
        ).exit_code
        == 1
    )
