"""The HTML reports in Chromium at their limits (`make test-browser`): a config whose names
close the style sheet, open a script and hold control characters -- its `check` and `explain
--memory` pages run nothing and show the names as text --, the sweep's grid, and the
10,000-table reports of bench/report_html.py, each rendered (navigation to the end of the load
event) in under 3 s and under 5 MB."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("selenium")
from tests.browser.chromium import CHROMIUM, DRIVER, full_screenshot

if not (CHROMIUM.exists() and DRIVER.exists()):
    pytest.skip(f"no {CHROMIUM} or {DRIVER}: `make test-browser`", allow_module_level=True)

from bench.report_html import RENDER_TARGET, SIZE_TARGET, render_time, write
from tests.browser.test_reports import SCREENSHOTS, figures, open_page, run
from tests.html_figures import CHANGE_NOT_SHOWN, NOT_SHOWN, ONCE, check, uncovered
from tests.test_html_reports import hostile_config, sweep_of
from tpuemb_cli.views.memory_html import render_sweep_html

pytestmark = pytest.mark.slow


def test_hostile_names_run_nothing(driver: Any, tmp_path: Path) -> None:
    config = tmp_path / "hostile.pbtxt"
    config.write_text(hostile_config())
    for name, args in {
        "hostile-check": ["check", str(config)],
        "hostile-memory": ["explain", "--memory", "--tpu", "v5p", str(config)],
    }.items():
        page = tmp_path / f"{name}.html"
        page.write_text(run(args, "html"))
        open_page(driver, page)  # no console error, no script element, nothing fetched
        assert (
            driver.execute_script("return document.querySelectorAll('script, style').length") == 1
        )
        body = driver.execute_script("return document.body.textContent")
        assert "</style><script>alert(1)</script>\\x1b[31m\\u202e" in body
        assert not any(c in body for c in "\x1b\u202e")
        full_screenshot(driver, SCREENSHOTS / f"{name}.png")


def test_sweep_grid(driver: Any, tmp_path: Path) -> None:
    sweep = sweep_of()
    page = tmp_path / "sweep.html"
    page.write_text(render_sweep_html(sweep))
    open_page(driver, page)
    document = sweep.document()
    found = figures(driver)
    for figure in found:
        check(document, figure)
    assert uncovered(document, found, "sweep") == set()
    smallest = driver.execute_script("return document.querySelector('td.smallest').textContent")
    assert smallest.startswith("\u2605 smallest fit") and "x1-16" in smallest
    full_screenshot(driver, SCREENSHOTS / "sweep.png")


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The 10,000-table reports' pages."""
    folder = tmp_path_factory.mktemp("large")
    pages = {}
    for label, args in write(folder).items():
        pages[label] = folder / f"{label.split()[0]}.html"
        pages[label].write_text(run(args, "html"))
        pages[label].with_suffix(".json").write_text(run(args, "json"))
    return pages


@pytest.mark.parametrize("label", ["check", "explain --memory", "diff"])
def test_ten_thousand_tables_render_in_time(
    driver: Any, large: dict[str, Path], label: str
) -> None:
    """Each page rendered in under 3 s and under 5 MB: the memory report of 10,000 tables, the
    check with a finding in every table and the diff with a change in every table (10,000 rows,
    each with its message)."""
    page = large[label]
    open_page(driver, page)
    if label != "explain --memory":
        # Every figure of the 10,000 rows, over the tables of 200 rows they are written in.
        document = json.loads(page.with_suffix(".json").read_text())
        found = figures(driver)
        for figure in found:
            check(document, figure)
        part = "changes" if label == "diff" else "findings"
        hidden = CHANGE_NOT_SHOWN if label == "diff" else NOT_SHOWN
        missing = uncovered(document, found, part, once=ONCE)
        assert {m for m in missing if m.rsplit(".", 1)[-1] not in hidden} == set()
    seconds = render_time(driver, page)
    print(f"{label}: {page.stat().st_size / 1e6:.2f} MB, rendered in {seconds:.2f} s")
    assert seconds < RENDER_TARGET
    assert page.stat().st_size < SIZE_TARGET
