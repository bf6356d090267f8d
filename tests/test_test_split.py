"""tools/check_test_split.py, which `make check-test-split` (in CI) runs on pytest's collections of
the whole suite, of `make test` and of `make test-slow`: it passes a partition and nothing else."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).parent.parent / "tools" / "check_test_split.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_test_split", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _collection(folder: Path, name: str, ids: list[str], total: int | None = None) -> str:
    """What `pytest -q --collect-only` prints for ``ids`` (of ``total``, when deselecting)."""
    count = f"{len(ids)}/{total}" if total is not None else str(len(ids))
    tail = f" ({total - len(ids)} deselected)" if total is not None else ""
    text = "".join(f"{test}\n" for test in ids) + f"\n{count} tests collected{tail} in 0.10s\n"
    (folder / name).write_text(text)
    return str(folder / name)


EVERY = ["tests/test_a.py::test_one", "tests/test_a.py::test_two[x]", "tests/test_b.py::test_slow"]


@pytest.mark.parametrize(
    ("fast", "slow", "expected"),
    [
        (EVERY[:2], EVERY[2:], ""),
        (
            EVERY[:2],
            EVERY[1:],
            "in both `make test` and `make test-slow`: tests/test_a.py::test_two[x]",
        ),
        (
            EVERY[:1],
            EVERY[2:],
            "in neither `make test` nor `make test-slow`: tests/test_a.py::test_two[x]",
        ),
        (EVERY, [], "a target selects no test"),
    ],
)
def test_only_a_partition_passes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fast: list[str],
    slow: list[str],
    expected: str,
) -> None:
    paths = [
        _collection(tmp_path, "all.txt", EVERY),
        _collection(tmp_path, "fast.txt", fast, len(EVERY)),
        _collection(tmp_path, "slow.txt", slow, len(EVERY)),
    ]
    code = _tool().main(paths)
    out, err = capsys.readouterr()
    if expected:
        assert (code, err) == (1, expected + "\n")
    else:
        assert (code, err) == (0, "")
        assert (
            out == "test split: 3 tests = 2 in `make test` + 1 in `make test-slow`, none in both\n"
        )


def test_a_failed_collection_is_no_proof(tmp_path: Path) -> None:
    # An import error: pytest lists what it could collect and no "N tests collected" line.
    broken = tmp_path / "fast.txt"
    broken.write_text(EVERY[0] + "\n\n1 error in 0.10s\n")
    with pytest.raises(SystemExit, match="no `N tests collected` line"):
        _tool().collected(broken)
