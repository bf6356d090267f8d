"""The HTML reports in a real browser (issue 42, point 2; `make test-browser`): each page of the
shipped examples -- `check examples/`, `diff` of the example spec and its next version,
`explain --memory` of each example with memory, with and without `--tpu` -- opened from a file
in headless Chromium: no console error, no script, nothing fetched; every figure in the DOM
equal to the JSON report of the same command (tests/html_figures.py), every figure of its
summary shown, the report's table as the text report has it; full-page screenshots to
build/screenshots/, one page in the dark scheme and printed too. A hostile config's page runs
nothing (tests/browser/test_hostile_and_large.py, with the sweep and the 10,000-table reports).

Skipped without selenium or Debian's /usr/bin/chromium (and its chromedriver)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.helpers import MEMORY_EXAMPLES
from tests.html_figures import CHANGE_NOT_SHOWN, NOT_SHOWN, ONCE, Figure, check, uncovered

pytest.importorskip("selenium")
from tests.browser.chromium import CHROMIUM, DRIVER, emulate, full_screenshot

if not (CHROMIUM.exists() and DRIVER.exists()):
    pytest.skip(f"no {CHROMIUM} or {DRIVER}: `make test-browser`", allow_module_level=True)

from tpuemb_cli.cli import main

pytestmark = pytest.mark.slow  # a browser each module: `make test-browser`, never `make test`

ROOT = Path(__file__).resolve().parent.parent.parent
SCREENSHOTS = ROOT / "build" / "screenshots"
# The README's picture of a memory report (TPUEMB_README_SCREENSHOT=1 writes it).
README_SCREENSHOT = ROOT / "docs" / "images" / "report-memory.png"

# Each page: its name and the command that writes it.
PAGES: dict[str, list[str]] = {
    "check-examples": ["check", "examples/"],
    "diff-recommender": [
        "diff",
        "examples/recommender.spec.yaml",
        "examples/changes/recommender.next.spec.yaml",
    ],
    "report-memory": ["explain", "--memory", "--tpu", "v5p", "examples/sparsecore/dlrm.spec.yaml"],
}
# The sweep: every slice of each chip named, as `--tpu <slice>` alone says it.
PAGES["sweep-recommender"] = ["explain", "--memory", "--tpu", "v5p,v6e,tpu7x", MEMORY_EXAMPLES[1]]
PAGES["sweep-dlrm"] = ["explain", "--memory", "--tpu", "v5p,v6e,tpu7x", MEMORY_EXAMPLES[3]]
for _example in MEMORY_EXAMPLES:
    _name = Path(_example).name.replace(".", "-")
    _folder = Path(_example).parent.name
    PAGES[f"memory-{_folder}-{_name}"] = ["explain", "--memory", _example]
    PAGES[f"memory-{_folder}-{_name}-v5p-8"] = ["explain", "--memory", "--tpu", "v5p-8", _example]
# What each page must show of its JSON report, all of it.
SHOWN = {
    "check-examples": ("summary", "findings"),
    "diff-recommender": ("summary", "changes"),
    "sweep-recommender": ("sweep",),
    "sweep-dlrm": ("sweep",),
}

# Every [data-json] element's attributes and text, its path made absolute under its row's.
FIGURES_JS = """
return Array.from(document.querySelectorAll('[data-json]'), e => {
  const attrs = {};
  for (const a of e.attributes) attrs[a.name] = a.value;
  if (attrs['data-json'].startsWith('.'))
    attrs['data-json'] = e.parentElement.closest('[data-at]').dataset.at + attrs['data-json'];
  return [attrs, e.textContent];
});
"""


def run(args: list[str], fmt: str) -> str:
    result = CliRunner().invoke(main, [*args, "--format", fmt], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def open_page(driver: Any, path: Path) -> None:
    """Loads ``path`` afresh (the console's log emptied first) and fails on any console error,
    any script element and anything fetched."""
    driver.get_log("browser")
    driver.get(path.as_uri())
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == [], severe
    assert driver.execute_script("return document.scripts.length") == 0
    fetched = "return performance.getEntriesByType('resource').map(r => r.name)"
    assert driver.execute_script(fetched) == []


def figures(driver: Any) -> list[Figure]:
    return [Figure(attrs, text) for attrs, text in driver.execute_script(FIGURES_JS)]


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_shows_the_json_report(driver: Any, tmp_path: Path, name: str) -> None:
    args = PAGES[name]
    page = tmp_path / f"{name}.html"
    page.write_text(run(args, "html"))
    document = json.loads(run(args, "json"))
    open_page(driver, page)
    found = figures(driver)
    assert found
    for figure in found:
        check(document, figure)
    for part in SHOWN.get(name, ("summary",)):
        missing = uncovered(document, found, part, once=ONCE)
        hidden = CHANGE_NOT_SHOWN if part == "changes" else NOT_SHOWN
        assert {m for m in missing if m.rsplit(".", 1)[-1] not in hidden} == set(), part
    # A cell that leaves its value to the row above shows a ditto mark (the style sheet's).
    dittos = driver.execute_script(
        "return Array.from(document.querySelectorAll('table.findings td:empty:not([data-json]),"
        " table.changes td:empty:not([data-json])'), c => getComputedStyle(c, '::before').content)"
    )
    assert all(d.startswith('"\u2033"') for d in dittos), set(dittos)
    assert dittos or not name.startswith("diff"), name  # two changes of one table
    if args[0] == "explain":
        text_report = run(args, "text")
        cells = driver.execute_script(
            "return Array.from(document.querySelectorAll('table[data-text-table] tbody tr'),"
            " r => Array.from(r.cells, c => c.textContent))"
        )
        for row in cells:
            assert re.search(r"\s+".join(map(re.escape, row)), text_report), row
    full_screenshot(driver, SCREENSHOTS / f"{name}.png")
    if name == "report-memory" and os.environ.get("TPUEMB_README_SCREENSHOT") == "1":
        README_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SCREENSHOTS / f"{name}.png", README_SCREENSHOT)


def test_dark_scheme_and_print(driver: Any, tmp_path: Path) -> None:
    page = tmp_path / "memory.html"
    page.write_text(run(PAGES["memory-examples-recommender-pbtxt-v5p-8"], "html"))
    open_page(driver, page)
    background = "return getComputedStyle(document.body).backgroundColor"
    try:
        emulate(driver, scheme="light")
        assert driver.execute_script(background) == "rgb(255, 255, 255)"
        full_screenshot(driver, SCREENSHOTS / "scheme-light.png")
        emulate(driver, scheme="dark")
        assert driver.execute_script(background) == "rgb(20, 20, 20)"
        full_screenshot(driver, SCREENSHOTS / "scheme-dark.png")
        # On paper: white whatever the scheme, and a status's mark still drawn before its word.
        emulate(driver, media="print", scheme="dark")
        assert driver.execute_script(background) == "rgb(255, 255, 255)"
        mark = "return getComputedStyle(document.querySelector('.status'), '::before').content"
        assert driver.execute_script(mark) != "none"
        full_screenshot(driver, SCREENSHOTS / "print.png")
    finally:
        emulate(driver)
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
