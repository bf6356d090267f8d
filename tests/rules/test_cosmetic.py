"""TE956 cosmetic: no effect on the restored state or on training."""

from pathlib import Path

import pytest

from tests.diff_rules import diff_of, kinds
from tests.helpers import CLEAN

TWO = (
    CLEAN.replace(
        "mode: TRAINING",
        'table_descriptor { name: "other" vocabulary_size: 10 dimension: 4 '
        "optimization_parameters { adagrad {} learning_rate { constant: 0.05 } "
        "gradient_accumulation_status: ENABLED } }\nmode: TRAINING",
    )
    + 'feature_descriptor { name: "o" table_id: 1 input_shape: 4 }\n'
)


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_named_tables_reordered(tmp_path: Path) -> None:
    lines = TWO.splitlines(keepends=True)
    first = "".join(lines[:10])  # the video table's block
    other = next(line for line in lines if 'name: "other"' in line)
    swapped = TWO.replace(first, "").replace(other, other + first)
    swapped = swapped.replace("table_id: 0", "table_id: X").replace("table_id: 1", "table_id: 0")
    swapped = swapped.replace("table_id: X", "table_id: 1")
    result = diff_of(tmp_path, swapped, old=TWO)
    assert {k[:2] for k in kinds(result)} == {("TE956", "cosmetic")}
    assert result.exit_code == 0
