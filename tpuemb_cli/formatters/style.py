"""Terminal colours, used only when the output is a terminal and NO_COLOR is not set."""

from __future__ import annotations

from collections.abc import Iterable

from tpuemb_cli.model import words
from tpuemb_cli.model.findings import Severity

_COLORS = {Severity.ERROR: "\x1b[31m", Severity.WARNING: "\x1b[33m", Severity.INFO: "\x1b[36m"}
_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"


def paint(
    text: str, severity: Severity | None, color: bool, bold: bool = False, dim: bool = False
) -> str:
    if not color:
        return text
    prefix = (
        (_COLORS[severity] if severity else "") + (_BOLD if bold else "") + (_DIM if dim else "")
    )
    return f"{prefix}{text}{_RESET}" if prefix else text


# The one escaping helper lives with the words every layer writes (the CLI's errors, a fix's
# diff headers); re-exported for the formatters.
ESCAPES = words.ESCAPES
printable = words.printable


def text_of(lines: Iterable[str]) -> str:
    """A human view's lines as its text, each line escaped: the one way ``explain``, ``explain
    --memory`` and their parts write what they show, so that a name quoted anywhere in a view --
    a header, a cell, a stack's line, a file name -- reaches the terminal escaped (issue 36,
    point 11: a JAX stack's header once printed its name raw). Escaping is idempotent: a line
    escaped before (a table's cells are, to measure their width) is unchanged. Only for views
    without colour: ``paint``'s sequences would be escaped too."""
    return "".join(printable(line) + "\n" for line in lines)
