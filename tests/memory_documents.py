"""What the memory reports' tests share: a JSON document's model fields, without the
``summary`` every model's report ends with (tested on its own in test_memory_summary)."""

from __future__ import annotations

import json
from typing import Any


def without_summary(text: str) -> dict[str, Any]:
    """The JSON document ``text`` without its ``summary``, which it must have."""
    document: dict[str, Any] = json.loads(text)
    assert isinstance(document.pop("summary"), dict)
    return document
