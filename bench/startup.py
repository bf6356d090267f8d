"""Start-up: `tpuemb check` on a one-table text config against the import floor.

    python -m bench.startup              # 21 pairs, one summary line (as in `make bench`)
    python -m bench.startup --runs 3     # three separate runs of 21 pairs each
    make bench-startup                   # the same, --runs 3 --installed, on the wheel

The floor is ``python -c "import google.protobuf.text_format, click"``: what any click command
that reads text format pays before it does anything. Ours is the ``tpuemb`` console script beside
this interpreter, as a user runs it, with the default output format for a non-tty (concise). Both
run from a temporary folder, so that neither has the checkout on ``sys.path``; the first line
printed names the ``tpuemb_cli`` the script imports and whether it is a regular install, and
``--installed`` fails unless it is one (in this interpreter's environment, not a checkout reached
through an editable install, ``PYTHONPATH`` or the working folder). An editable install flatters
the ratio: its ``.pth`` file imports setuptools' finder, and with it ``pathlib``, into every
process, the floor's included, so the floor pays for a module tpuemb imports.

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


def tpuemb_command(python: str | None = None) -> list[str]:
    """The console script beside ``python`` (default: this interpreter), not a shell shim in
    front of it."""
    python = python or sys.executable
    script = Path(python).parent / "tpuemb"
    if script.exists():
        return [str(script)]
    found = shutil.which("tpuemb")
    return [found] if found else [python, "-m", "tpuemb_cli"]


@dataclass(frozen=True)
class Package:
    """The ``tpuemb_cli`` that ``python`` imports outside the checkout, as its console script
    does (the script's folder, not the working one, heads its ``sys.path``)."""

    path: Path  # tpuemb_cli's folder
    regular: bool  # installed in the environment's site-packages, not found through a .pth file

    def line(self) -> str:
        kind = "regular install" if self.regular else "NOT a regular install (editable or checkout)"
        return f"tpuemb_cli measured: {self.path} ({kind})"


FIND_PACKAGE = "; ".join(
    [
        "import site, tpuemb_cli",
        "print(tpuemb_cli.__file__)",
        "print(*site.getsitepackages(), sep='\\n')",
    ]
)


def package(directory: Path, python: str | None = None) -> Package:
    done = subprocess.run(
        [python or sys.executable, "-c", FIND_PACKAGE],
        cwd=directory,
        capture_output=True,
        text=True,
        check=True,
    )
    found, *site_packages = done.stdout.splitlines()
    path = Path(found).resolve().parent
    regular = any(path.parent == Path(folder).resolve() for folder in site_packages)
    return Package(path, regular)


def wall_time(command: list[str], directory: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    return time.perf_counter() - start


@dataclass(frozen=True)
class Startup:
    ratio: float  # the median of the per-pair ratios
    ours: list[float]  # seconds, in the order run
    floor: list[float]
    package: Package

    def line(self) -> str:
        return (
            f"start-up, {len(self.ours)} alternating pairs: `tpuemb check` one table "
            f"min {min(self.ours) * 1000:.1f} / median {statistics.median(self.ours) * 1000:.1f} "
            f"ms, `{FLOOR}` min {min(self.floor) * 1000:.1f} / median "
            f"{statistics.median(self.floor) * 1000:.1f} ms; median per-pair ratio "
            f"{self.ratio:.2f}x"
        )


def prepare(directory: Path, python: str) -> tuple[list[str], list[str], Package]:
    """Byte-compiles the tpuemb_cli the command imports, writes the one-table config and returns
    (ours, floor, that tpuemb_cli)."""
    # Byte-compile first, as pip does when it installs a package (a no-op on a regular install,
    # which pip compiled): a measurement that recompiled every module on each run
    # (PYTHONDONTWRITEBYTECODE) would measure the compiler, not tpuemb.
    import compileall

    measured = package(directory, python)
    compileall.compile_dir(str(measured.path), quiet=1)
    one = directory / "one_table.pbtxt"
    one.write_bytes(render(build(1))["text"])
    ours = [*tpuemb_command(python), "check", str(one)]
    done = subprocess.run(ours, cwd=directory, capture_output=True, text=True, check=False)
    # A clean config: the measurement is of the common path, not of an error or a report.
    assert (done.returncode, done.stderr) == (0, ""), done
    return ours, [python, "-c", FLOOR], measured


def measure(directory: Path, pairs: int = PAIRS, python: str | None = None) -> Startup:
    """``tpuemb check`` with ``python``'s console script against the floor under ``python``
    (default: this interpreter), in ``pairs`` alternating pairs."""
    # Absolute (the commands run in ``directory``), but not resolved: a virtual environment's
    # interpreter is a symbolic link, and its environment is found from the link's folder.
    python = str(Path(python or sys.executable).absolute())
    ours_command, floor_command, measured = prepare(directory, python)
    wall_time(floor_command, directory)  # one unmeasured run each: their files are then cached
    wall_time(ours_command, directory)
    ours: list[float] = []
    floor: list[float] = []
    for _ in range(pairs):
        ours.append(wall_time(ours_command, directory))
        floor.append(wall_time(floor_command, directory))
    ratio = statistics.median(o / f for o, f in zip(ours, floor, strict=True))
    return Startup(ratio, ours, floor, measured)


def run(directory: Path, pairs: int = PAIRS, python: str | None = None) -> float:
    """Measures and prints the detail lines (bench/run.py prints the summary); the ratio."""
    result = measure(directory, pairs, python)
    print(f"\n{result.package.line()}\n{result.line()}")
    return result.ratio


def summary(ratio: float) -> str:
    return f"one-table `tpuemb check` / imports alone:     {ratio:.2f}x (<= {TARGET})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=PAIRS, help="pairs per run (default 21)")
    parser.add_argument("--runs", type=int, default=1, help="separate runs of --pairs pairs")
    parser.add_argument(
        "--installed",
        action="store_true",
        help="fail unless the tpuemb_cli measured is a regular (non-editable) install",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tpuemb-startup-") as name:
        measured = package(Path(name))
        print(measured.line())
        if args.installed and not measured.regular:
            print("--installed: not a regular install; `make bench-startup` measures one")
            return 2
        for _ in range(args.runs):
            result = measure(Path(name), args.pairs)
            print(result.line())
            print(f"  {summary(result.ratio)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
