"""How every explain view writes its lines: escaped, one per line."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tpuemb_cli.model.words import printable


def text_of(lines: Iterable[str]) -> str:
    """A human view's lines as its text, each line escaped: the one way ``explain``, ``explain
    --memory`` and their parts write what they show, so that a name quoted anywhere in a view --
    a header, a cell, a stack's line, a file name -- reaches the terminal escaped (issue 36,
    point 11: a JAX stack's header once printed its name raw). Escaping is idempotent: a line
    escaped before (a table's cells are, to measure their width) is unchanged. Only for views
    without colour: the report formats' ``paint`` sequences would be escaped too."""
    return "".join(printable(line) + "\n" for line in lines)


def grid(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """``rows`` (the first is the header) as aligned columns, the header underlined. Cells come
    from the document: shown escaped, so that a name cannot forge rows or colour a terminal."""
    cells = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[c]) for row in cells) for c in range(len(cells[0]))]
    lines = []
    for index, row in enumerate(cells):
        lines.append(indent + "  ".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip())
        if index == 0:
            lines.append(indent + "  ".join("-" * width for width in widths))
    return lines
