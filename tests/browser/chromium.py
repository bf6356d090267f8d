"""Headless Chromium for the HTML reports' tests: Debian's chromium and chromium-driver (`make
test-browser` installs them), on a closed network, as root (no sandbox), with a fresh profile."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
DRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)


def start(profile: Path | None = None) -> Any:
    """A Chromium session that keeps every console message (``get_log("browser")``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    profile = profile or Path(tempfile.mkdtemp(prefix="tpuemb-chromium-"))
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(str(DRIVER)))


def full_screenshot(driver: Any, path: Path) -> None:
    """The whole page, not only the window, as a PNG (DevTools' capture beyond the viewport)."""
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = metrics["cssContentSize"]
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
        },
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))


def emulate(driver: Any, media: str = "", scheme: str = "") -> None:
    """The media type (``print``) and colour scheme (``dark``) the page is shown with."""
    features = [{"name": "prefers-color-scheme", "value": scheme}] if scheme else []
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": media, "features": features})
