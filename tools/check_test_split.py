"""Fails unless `make test` and `make test-slow` together run every test of the suite, each once.

    python tools/check_test_split.py ALL FAST SLOW

Each argument is the output of `pytest -q --collect-only` (with the same options as the target it
stands for): ALL for the whole suite, FAST and SLOW for the two targets' selections. `make
check-test-split` writes them and runs this.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# `pytest -q --collect-only` ends with "N tests collected" or "N/M tests collected (K deselected)".
SUMMARY = re.compile(r"^(\d+)(?:/(\d+))? tests? collected")


def collected(path: Path) -> list[str]:
    """The test ids listed in ``path``, checked against the count pytest printed under them."""
    lines = path.read_text().splitlines()
    ids = [line for line in lines if "::" in line and not line.startswith(" ")]
    counts = [match for line in lines if (match := SUMMARY.match(line))]
    if len(counts) != 1:
        raise SystemExit(f"{path}: no `N tests collected` line: did the collection fail?")
    if int(counts[0].group(1)) != len(ids):
        raise SystemExit(f"{path}: pytest counted {counts[0].group(1)} tests, {len(ids)} listed")
    if len(set(ids)) != len(ids):
        raise SystemExit(f"{path}: a test id is listed twice")
    return ids


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    every, fast, slow = (set(collected(Path(arg))) for arg in argv)
    problems = [
        *(f"in both `make test` and `make test-slow`: {test}" for test in sorted(fast & slow)),
        *(
            f"in neither `make test` nor `make test-slow`: {test}"
            for test in sorted(every - fast - slow)
        ),
        *(f"not in the whole suite: {test}" for test in sorted((fast | slow) - every)),
    ]
    if not fast or not slow:
        problems.append("a target selects no test")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(
        f"test split: {len(every)} tests = {len(fast)} in `make test` + {len(slow)} in "
        "`make test-slow`, none in both"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
