"""A toyemb table with no rows.

toyemb refuses a table of zero rows when the model is built. Give it the rows its ids need.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.model.findings import Violation


def check_toy(config: Any) -> Iterator[Violation]:
    for index, table in enumerate(config.tables):
        if table.rows < 1:
            yield Violation(
                ("tables", index, "rows"),
                f"table `{table.name}` has {table.rows} rows",
                "give it at least one row",
            )
