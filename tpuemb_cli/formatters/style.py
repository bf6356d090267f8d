"""Terminal colours, used only when the output is a terminal and NO_COLOR is not set."""

from __future__ import annotations

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
# diff headers); re-exported for the formatters. (The views' ``text_of`` is in views/text.)
ESCAPES = words.ESCAPES
printable = words.printable
