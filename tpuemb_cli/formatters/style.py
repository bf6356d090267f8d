"""Terminal colours, used only when the output is a terminal and NO_COLOR is not set."""

from __future__ import annotations

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


# Characters that a terminal acts on instead of showing: C0 and C1 controls and DEL (a newline
# would start a forged output line, an escape sequence repaints the terminal), the line and
# paragraph separators, and the bidi embeddings, overrides and isolates (they reorder what is
# shown, as in CVE-2021-42574). Config strings (a table's name) reach human output through
# messages and excerpts; these are shown escaped, as Python writes them. Machine formats (JSON,
# SARIF) keep the exact strings: JSON escapes them itself.
_SHORT = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
_UNSAFE = (
    *range(0x20),
    *range(0x7F, 0xA0),
    0x2028,
    0x2029,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
)
ESCAPES: dict[int, str] = {
    code: _SHORT.get(code) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    for code in _UNSAFE
}


def printable(text: str) -> str:
    """``text`` with the characters a terminal would act on written as escapes (``\\n``,
    ``\\x1b``, ``\\u202e``)."""
    return text.translate(ESCAPES)
