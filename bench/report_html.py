"""The HTML report at 10,000 tables (issue 42, point 2): its size, its cost against the JSON
report of the same command, and the time a browser takes to render it.

    python -m bench.report_html      # or: make bench-report

For three reports of 10,000 tables -- `check` of a config with a finding in every table,
`explain --memory --tpu v5p` of a 10,000-table config, `diff` of two configs in which every
table's dimension changed -- it prints the HTML page's size (target < 5 MB, beside the JSON
report's), the time of `--format html` against `--format json` of the same command, each a
`tpuemb` process, in alternating pairs, the median of the per-pair ratios (target <= 1.5x),
and, where Debian's chromium and chromium-driver are installed (`make test-browser` installs
them) and selenium imports, the time from navigation to the load event of the page in headless
Chromium, best of three (target < 3 s).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.configs import build, render

TABLES = 10_000
SIZE_TARGET = 5_000_000  # bytes
RATIO_TARGET = 1.5
RENDER_TARGET = 3.0  # seconds


def write(directory: Path, tables: int = TABLES) -> dict[str, list[str]]:
    """The three reports' configs, written to ``directory``: each command's arguments."""
    mistaken = build(tables)
    for table in mistaken.table_descriptor:
        params = table.optimization_parameters
        if params.weight_decay_factor:
            # Reversed clipping (TE301) where the decay is real...
            params.gradient_clipping_limits.lower.value = 1.0
            params.gradient_clipping_limits.upper.value = -1.0
        else:
            # ...and a decay multiplier with no decay (TE305) everywhere else.
            params.multiply_weight_decay_factor_by_learning_rate = True
    changed = build(tables)
    for table in changed.table_descriptor:
        table.dimension *= 2
    files = {
        "mistaken": mistaken,
        "config": build(tables),
        "changed": changed,
    }
    paths = {}
    for name, config in files.items():
        paths[name] = directory / f"report-{name}-{tables}.pbtxt"
        paths[name].write_bytes(render(config)["text"])
    return {
        "check": ["check", str(paths["mistaken"])],
        "explain --memory": ["explain", "--memory", "--tpu", "v5p", str(paths["config"])],
        "diff": ["diff", str(paths["config"]), str(paths["changed"])],
    }


# The `tpuemb` measured: `--tpuemb PATH` (the console script of a regular install, as users have
# it: `make bench-report` passes build/venv-bench's), else this interpreter's tpuemb_cli.
TPUEMB = [sys.executable, "-m", "tpuemb_cli"]


def tpuemb(args: list[str], fmt: str, output: Path | None = None) -> float:
    """One `tpuemb` process writing the report in ``fmt`` (to ``output``): its wall time."""
    command = [*TPUEMB, *args, "--format", fmt]
    start = time.perf_counter()
    with (output or Path("/dev/null")).open("wb") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.DEVNULL, check=False)
    elapsed = time.perf_counter() - start
    assert done.returncode in (0, 1), (command, done.returncode)
    return elapsed


def ratio(args: list[str], pairs: int) -> tuple[float, float, float]:
    """Median of the per-pair ratios html / json, and the median times of each."""
    html, json = [], []
    for _ in range(pairs):
        json.append(tpuemb(args, "json"))
        html.append(tpuemb(args, "html"))
    ratios = [h / j for h, j in zip(html, json, strict=True)]
    return statistics.median(ratios), statistics.median(html), statistics.median(json)


def chromium_available() -> bool:
    from tests.browser.chromium import CHROMIUM, DRIVER

    try:
        import selenium  # noqa: F401
    except ImportError:
        return False
    return CHROMIUM.exists() and DRIVER.exists()


def render_time(driver: Any, page: Path, runs: int = 3) -> float:
    """Navigation start to the end of the load event of ``page`` (seconds), best of ``runs``.
    WebDriver's ``get`` returns once the document is complete, which can be before the load
    event has ended: its end is read once it is there."""
    best = float("inf")
    script = (
        "const t = performance.getEntriesByType('navigation')[0];"
        "return t && t.loadEventEnd > 0 ? t.loadEventEnd - t.startTime : null;"
    )
    for _ in range(runs):
        driver.get("about:blank")
        driver.get(page.as_uri())
        deadline = time.monotonic() + 60
        while (loaded := driver.execute_script(script)) is None:
            assert time.monotonic() < deadline, f"{page}: no load event in 60 s"
            time.sleep(0.02)
        best = min(best, loaded / 1000)
    return best


def run(directory: Path, pairs: int = 3) -> list[tuple[str, float, str]]:
    """Prints each report's figures; returns the summary rows (label, value, target)."""
    commands = write(directory)
    pages = {}
    rows: list[tuple[str, float, str]] = []
    print(f"\nHTML reports of {TABLES:,} tables")
    for label, args in commands.items():
        pages[label] = directory / f"{label.split()[0]}.html"
        tpuemb(args, "html", pages[label])
        tpuemb(args, "json", pages[label].with_suffix(".json"))
        size = pages[label].stat().st_size
        json_size = pages[label].with_suffix(".json").stat().st_size
        median, html, json = ratio(args, pairs)
        print(
            f"  {label}: {size / 1e6:.2f} MB of HTML ({json_size / 1e6:.2f} MB of JSON); html "
            f"{html:.2f} s, json {json:.2f} s (median of {pairs} pairs: {median:.2f}x)"
        )
        target = f"< {SIZE_TARGET / 1e6:.0f}; JSON {json_size / 1e6:.2f}"
        rows.append((f"{label} html size (MB)", size / 1e6, target))
        rows.append((f"{label} html / json time", median, f"<= {RATIO_TARGET}"))
    if chromium_available():
        from tests.browser.chromium import start

        driver = start()
        try:
            for label, page in pages.items():
                seconds = render_time(driver, page)
                print(f"  {label}: rendered in Chromium in {seconds:.2f} s (to the load event)")
                rows.append((f"{label} html render (s)", seconds, f"< {RENDER_TARGET:.0f}"))
        finally:
            driver.quit()
    else:
        print("  render time: skipped (no /usr/bin/chromium, chromedriver or selenium)")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3, help="html/json pairs per report")
    parser.add_argument("--tpuemb", help="the tpuemb console script to measure")
    args = parser.parse_args()
    if args.tpuemb:
        TPUEMB[:] = [args.tpuemb]
    print(f"measuring: {' '.join(TPUEMB)}")
    with tempfile.TemporaryDirectory(prefix="tpuemb-bench-html-") as name:
        rows = run(Path(name), args.pairs)
    print("\nsummary (target)")
    for label, value, target in rows:
        print(f"  {label + ':':<46}{value:.2f} ({target})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
