"""`tpuemb explain --memory --tpu v5e --format json` on a 50,000-table config against the same
without `--tpu` (target <= 1.5x): what the chip's verdict and its advice add.

The config does not fit a v5e core on its 32 cores, so the advice is worked out, twice in the
JSON report (the smallest slice that fits and the smallest under the warning threshold). It once
bisected over every integer up to the largest table's rows, re-walking all the tables at each of
about 64 steps (3.2 s against 1.5 s; 7.6 s with `--format json`); now it bisects over the chip's
slice sizes, each step a sum over the tables larger than the cores (model/advice.py).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path

from bench.configs import build, render
from tpuemb_cli.cli import main

TABLES = 50_000


def _explain(path: Path, *options: str) -> Callable[[], object]:
    def run() -> object:
        with redirect_stdout(io.StringIO()) as out:
            try:
                main(["explain", "--memory", "--format", "json", *options, str(path)])
            except SystemExit as stop:
                assert stop.code == 0, stop.code
        return out.getvalue()

    return run


def run(directory: Path, best_of: Callable[..., float], repeat: int = 2) -> float:
    del repeat  # each run takes seconds: two alternations, whatever the other lines use
    path = directory / f"advice_{TABLES}.pbtxt"
    path.write_bytes(render(build(TABLES))["text"])
    assert '"fits": false' in str(_explain(path, "--tpu", "v5e")())  # the advice is computed
    # Alternated, each the best of its runs: a slow spell of the machine then falls on both.
    without = with_tpu = float("inf")
    for _ in range(2):  # each run is seconds long: two alternations
        without = min(without, best_of(_explain(path), 1, spread=0))
        with_tpu = min(with_tpu, best_of(_explain(path, "--tpu", "v5e"), 1, spread=0))
    print(
        f"\nexplain --memory --format json at {TABLES:,} tables: {without:.3f}s without --tpu, "
        f"{with_tpu:.3f}s with --tpu v5e"
    )
    return with_tpu / without


if __name__ == "__main__":
    import tempfile

    from bench.run import best_of as measure

    with tempfile.TemporaryDirectory(prefix="tpuemb-bench-") as name:
        ratio = run(Path(name), measure, 3)
    print(f"explain --memory --tpu / without, 50k tables: {ratio:.2f}x (<= 1.5)")
