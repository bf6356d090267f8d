"""What the ``--memory`` renderers (views/memory_text, views/memory_json) write with: the share
bar and the JSON document's text. The verdict's wording is the text renderer's, from the words
each model's report supplies; a cut name is the adapters' (model/memory_report.cut)."""

from __future__ import annotations

import json
from typing import Any

BAR = 20  # characters of a 100% bar


def bar(share: float) -> str:
    """A row's share of the total as a bar of ``BAR`` characters."""
    filled = round(share * BAR)
    return "#" * filled + "." * (BAR - filled)


def document_text(document: Any) -> str:
    """A ``--memory --format json`` document as every view writes it."""
    return json.dumps(document, indent=2) + "\n"
