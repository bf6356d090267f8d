"""Large SparseCore specs and wide configs, command by command (issue 26, points 5 and 6);
``python -m bench.sparsecore`` runs these lines alone.

Each command runs as `tpuemb` runs it, in a process of its own (its time from before the CLI's
imports to its exit, and its peak memory: VmHWM), the commands in turn, best of ``repeat``:

- `check --format json` of an 8,000-table SparseCore spec (bench/sparsecore_specs.py) against
  the same of bench.configs' 10,000-table text config (target <= 3x);
- `compile --target sparsecore` of that spec against its `check` (target <= 2x), and `explain`
  of it against its `check` (target <= 2x);
- `explain` against `check` of a config of 6,000 tables and 6,000 features (target <= 2x);
- the bytes `compile --target sparsecore` writes per table at 1,000, 4,000 and 8,000 tables.
  TensorFlow's ``SparseCoreTableLayout`` holds its stack's name (every member's name joined)
  in every member, and TensorFlow 2.21 gives an activation size to the first feature's table
  only, so a stack of small tables grows until the 2 GiB shard limit: here each of the twelve
  (width, optimizer) groups is one stack, and the names' repetition grows as tables x tables / 12.
  That is TensorFlow's own bytes; everything else must stay linear: bytes per table without the
  stacked names, 8k against 1k (target <= 1.10).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from bench.configs import build, render
from bench.sparsecore_specs import sparsecore_spec, wide_config

SPEC_TABLES = 8_000
CONFIG_TABLES = 10_000
WIDE = 6_000
OUTPUT_SIZES = (1_000, 4_000, 8_000)

# Peak memory of the process itself (VmHWM; ru_maxrss would carry a parent's across exec).
_RUN = """\
import sys, time
began = time.perf_counter()
from tpuemb_cli.cli import main
sys.argv = ['tpuemb', *{args!r}]
try:
    main()
except SystemExit:
    pass
elapsed = time.perf_counter() - began
peak = 0
for line in open('/proc/self/status'):
    if line.startswith('VmHWM:'):
        peak = int(line.split()[1]) * 1024
print(elapsed, peak, file=sys.stderr)
"""

_STACKED_NAME = re.compile(rb'^  stacked_table_name: "[^\n]*"\n', re.MULTILINE)


class Measured(NamedTuple):
    seconds: float
    peak_bytes: int


def command(args: list[str]) -> Measured:
    """One run of ``tpuemb *args`` (stdout discarded), timed and measured inside its process."""
    run = subprocess.run(
        [sys.executable, "-c", _RUN.format(args=args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    seconds, peak = run.stderr.strip().splitlines()[-1].split()
    return Measured(float(seconds), int(peak))


def _best(commands: dict[str, list[str]], repeat: int) -> dict[str, Measured]:
    """The commands in turn, ``repeat`` rounds: a slow spell of the machine falls on all."""
    best: dict[str, Measured] = {}
    for _ in range(repeat):
        for name, args in commands.items():
            measured = command(args)
            if name not in best or measured.seconds < best[name].seconds:
                best[name] = measured
    return best


def _output_per_table(directory: Path) -> list[tuple[int, float, float]]:
    """(tables, bytes per table, bytes per table without the stacked names) of the layouts."""
    rows = []
    for tables in OUTPUT_SIZES:
        spec = directory / f"sparsecore_{tables}.spec.yaml"
        if not spec.exists():
            spec.write_text(sparsecore_spec(tables))
        out = directory / f"sparsecore_{tables}.pbtxt"
        command(["compile", "--target", "sparsecore", "-o", str(out), str(spec)])
        data = out.read_bytes()
        names = sum(len(match) for match in _STACKED_NAME.findall(data))
        rows.append((tables, len(data) / tables, (len(data) - names) / tables))
    return rows


def run(directory: Path, repeat: int) -> list[tuple[str, float, str]]:
    """Prints the measurements; returns the summary's (label, ratio, target) rows."""
    spec = directory / f"sparsecore_{SPEC_TABLES}.spec.yaml"
    spec.write_text(sparsecore_spec(SPEC_TABLES))
    config = directory / f"config_{CONFIG_TABLES}_sc.pbtxt"
    config.write_bytes(render(build(CONFIG_TABLES))["text"])
    wide = directory / f"wide_{WIDE}.pbtxt"
    wide.write_bytes(render(wide_config(WIDE))["text"])
    layouts = directory / "sparsecore_layouts.pbtxt"
    commands = {
        "10k config: check": ["check", "--format", "json", str(config)],
        "8k SparseCore spec: check": ["check", "--format", "json", str(spec)],
        "8k SparseCore spec: compile": [
            "compile",
            "--target",
            "sparsecore",
            "-o",
            str(layouts),
            str(spec),
        ],
        "8k SparseCore spec: explain": ["explain", str(spec)],
        "6k x 6k config: check": ["check", "--format", "json", str(wide)],
        "6k x 6k config: explain": ["explain", str(wide)],
    }
    best = _best(commands, max(repeat, 1))
    print(f"\nlarge SparseCore specs and wide configs (`tpuemb` in a process, best of {repeat})")
    for name, measured in best.items():
        print(f"  {name:<30} {measured.seconds:7.2f} s   peak {measured.peak_bytes / 1e6:6.0f} MB")
    output = _output_per_table(directory)
    print("  compile --target sparsecore, bytes per table (all / without the stacked names):")
    for tables, per_table, without_names in output:
        print(f"    {tables:>6,} tables: {per_table:9,.0f} / {without_names:5,.0f}")

    def ratio(numerator: str, denominator: str) -> float:
        return best[numerator].seconds / best[denominator].seconds

    check = "8k SparseCore spec: check"
    return [
        ("8k SparseCore check / 10k config check", ratio(check, "10k config: check"), "<= 3"),
        ("8k SparseCore compile / its check", ratio("8k SparseCore spec: compile", check), "<= 2"),
        ("8k SparseCore explain / its check", ratio("8k SparseCore spec: explain", check), "<= 2"),
        (
            "explain / check, 6k tables x 6k features",
            ratio("6k x 6k config: explain", "6k x 6k config: check"),
            "<= 2",
        ),
        (
            "layout bytes/table w/o stacked names 8k / 1k",
            output[-1][2] / output[0][2],
            "<= 1.10",
        ),
        (
            "layout bytes/table 8k / 1k (TF's stacked names)",
            output[-1][1] / output[0][1],
            "info",
        ),
    ]


Rows = list[tuple[str, float, str]]


def bench_main(
    description: str,
    write: Callable[[Path], dict[str, Path]],
    run: Callable[[Path, int], Rows],
    repeat: int,
) -> int:
    """A bench's command line: ``[repeat]`` runs it in a scratch folder and prints its summary;
    ``--write FOLDER`` only writes its inputs there (to run them by hand)."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("repeat", nargs="?", type=int, default=repeat)
    parser.add_argument("--write", type=Path, help="only write the inputs to this folder")
    args = parser.parse_args()
    if args.write is not None:
        args.write.mkdir(parents=True, exist_ok=True)
        for path in write(args.write).values():
            print(path)
        return 0
    with tempfile.TemporaryDirectory(prefix="tpuemb-bench-") as name:
        rows = run(Path(name), args.repeat)
    print("\nsummary (target)")
    for label, ratio, target in rows:
        print(f"  {label + ':':<46}{ratio:.2f}x ({target})")
    return 0


def main() -> int:
    """``python -m bench.sparsecore [repeat]``: these lines alone."""
    import tempfile

    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory(prefix="tpuemb-bench-") as name:
        rows = run(Path(name), repeat)
    print("\nsummary (target)")
    for label, ratio, target in rows:
        print(f"  {label + ':':<46}{ratio:.2f}x ({target})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
