"""The browser tests' one Chromium session a module (tests/browser/chromium.py starts it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.browser.chromium import start

    session = start(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield session
    finally:
        session.quit()
