"""Start-up: `tpuemb check` on a one-table text config against the import floor.

    python -m bench.startup              # 21 pairs, one summary line (as in `make bench`)
    python -m bench.startup --runs 3     # three separate runs of 21 pairs each

The floor is ``python -c "import google.protobuf.text_format, click"``: what any click command
that reads text format pays before it does anything. Ours is the ``tpuemb`` console script beside
this interpreter, as a user runs it, with the default output format for a non-tty (concise).

The two commands run in pairs, alternating (ours, floor, ours, floor, ...), and the result is the
median of the per-pair ratios: a slow spell of the machine (another process's test run on a
two-core machine) then falls on both sides of the pairs it touches, and a pair it splits is one
outlier among the rest. Medians taken separately of each side let a spell that fell mostly on one
side's runs move the ratio by 10% and more.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.configs import build, render

FLOOR = "import google.protobuf.text_format, click"
PAIRS = 21
TARGET = 1.25


def tpuemb_command() -> list[str]:
    """The console script beside this interpreter (not a shell shim in front of it)."""
    script = Path(sys.executable).parent / "tpuemb"
    if script.exists():
        return [str(script)]
    found = shutil.which("tpuemb")
    return [found] if found else [sys.executable, "-m", "tpuemb_cli"]


def wall_time(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


@dataclass(frozen=True)
class Startup:
    ratio: float  # the median of the per-pair ratios
    ours: list[float]  # seconds, in the order run
    floor: list[float]

    def line(self) -> str:
        return (
            f"start-up, {len(self.ours)} alternating pairs: `tpuemb check` one table "
            f"min {min(self.ours) * 1000:.1f} / median {statistics.median(self.ours) * 1000:.1f} "
            f"ms, `{FLOOR}` min {min(self.floor) * 1000:.1f} / median "
            f"{statistics.median(self.floor) * 1000:.1f} ms; median per-pair ratio "
            f"{self.ratio:.2f}x"
        )


def prepare(directory: Path) -> tuple[list[str], list[str]]:
    """Byte-compiles tpuemb_cli, writes the one-table config and returns (ours, floor)."""
    # Byte-compile first, as pip does when it installs a package: a measurement that recompiled
    # every module on each run (PYTHONDONTWRITEBYTECODE) would measure the compiler, not tpuemb.
    import compileall

    import tpuemb_cli

    compileall.compile_dir(str(Path(tpuemb_cli.__file__).parent), quiet=1)
    one = directory / "one_table.pbtxt"
    one.write_bytes(render(build(1))["text"])
    ours = [*tpuemb_command(), "check", str(one)]
    done = subprocess.run(ours, capture_output=True, text=True, check=False)
    # A clean config: the measurement is of the common path, not of an error or a report.
    assert (done.returncode, done.stderr) == (0, ""), done
    return ours, [sys.executable, "-c", FLOOR]


def measure(directory: Path, pairs: int = PAIRS) -> Startup:
    ours_command, floor_command = prepare(directory)
    wall_time(floor_command)  # one unmeasured run each: the files they read are then cached
    wall_time(ours_command)
    ours: list[float] = []
    floor: list[float] = []
    for _ in range(pairs):
        ours.append(wall_time(ours_command))
        floor.append(wall_time(floor_command))
    ratio = statistics.median(o / f for o, f in zip(ours, floor, strict=True))
    return Startup(ratio, ours, floor)


def run(directory: Path, pairs: int = PAIRS) -> float:
    """Measures and prints the detail line (bench/run.py prints the summary); the ratio."""
    result = measure(directory, pairs)
    print(f"\n{result.line()}")
    return result.ratio


def summary(ratio: float) -> str:
    return f"one-table `tpuemb check` / imports alone:     {ratio:.2f}x (<= {TARGET})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=PAIRS, help="pairs per run (default 21)")
    parser.add_argument("--runs", type=int, default=1, help="separate runs of --pairs pairs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tpuemb-startup-") as name:
        for _ in range(args.runs):
            result = measure(Path(name), args.pairs)
            print(result.line())
            print(f"  {summary(result.ratio)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
