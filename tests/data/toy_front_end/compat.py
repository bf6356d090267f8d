"""``tpuemb diff`` of two toyemb configs: toyemb saves each table as one variable named after it,
so a table whose shape changed cannot restore, and a removed one leaves its variable behind."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.kinds import Placed
from tpuemb_cli.compat.layouts import Layout
from tpuemb_cli.load import Document


def layout_toy(document: Document, facts: Any) -> Layout:
    return Layout("toy", "a toyemb config", "a toyemb config has no TensorFlow checkpoint")


def _at(document: Document, path: tuple[str | int, ...]) -> Any:
    return document.source_map.position(path) if document.source_map is not None else None


def changes_toy(
    name: str, old: Document | None, new: Document | None, engine: Any
) -> tuple[Document, list[Placed]]:
    assert old is not None and new is not None  # a pair (a file added or removed: none here)
    was_config: Any = old.message  # a ToyConfig
    config: Any = new.message
    before = {table.name: (index, table) for index, table in enumerate(was_config.tables)}
    found = []
    for index, table in enumerate(config.tables):
        if table.name not in before:
            continue
        _, was = before.pop(table.name)
        if (was.rows, was.dim) != (table.rows, table.dim):
            path = ("tables", index)
            found.append(
                Placed(
                    "restore-error",
                    table.name,
                    path,
                    f"{was.rows}x{was.dim}",
                    f"{table.rows}x{table.dim}",
                    f"table `{table.name}` was {was.rows}x{was.dim}, is {table.rows}x{table.dim}: "
                    "its saved variable does not restore into it",
                    new.name,
                    _at(new, path),
                )
            )
    for name, (index, _) in before.items():
        path = ("tables", index)
        found.append(
            Placed(
                "orphaned-state",
                name,
                path,
                name,
                None,
                f"table `{name}` was removed: its saved variable is left unread",
                old.name,
                _at(old, path),
            )
        )
    return new, found
