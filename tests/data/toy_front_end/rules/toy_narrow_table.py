"""A toyemb table narrower than 8.

toyemb pads every row to a multiple of 8 values: a narrower table wastes most of its memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.model.findings import Violation


def check_toy(config: Any) -> Iterator[Violation]:
    for index, table in enumerate(config.tables):
        if 0 < table.dim < 8:
            yield Violation(
                ("tables", index, "dim"),
                f"table `{table.name}` is {table.dim} wide; toyemb pads it to 8",
                "use a width of 8 or more",
            )
