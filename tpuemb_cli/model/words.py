"""How messages write things: a count with its noun, and a number as a user would write it.

``count`` is the one way every view writes an integer a user reads as a quantity (rows, cores,
bytes, tables): with thousands separators, ``2,000,000``, so that ``explain``, ``explain
--memory``, the SparseCore views and the findings' messages agree (issue 26, point 10).
Identifiers that happen to be integers -- a table's index, a dynamic-learning-rate tag, a line
number -- are not counts and are written plainly."""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable


def count(value: int) -> str:
    """An integer quantity as every view writes it: ``812``, ``12,000``, ``-2,000,000``; one past
    what Python writes in digits (4,300 of them: a product of a document's huge numbers) by its
    size, ``an integer of 30,000 bits``."""
    if value.bit_length() > _MOST_BITS:
        return f"{'-' if value < 0 else ''}an integer of {value.bit_length():,} bits"
    return f"{value:,}"


_MOST_BITS = 14_000  # 4,214 decimal digits, below sys.get_int_max_str_digits()'s default 4,300


def plural(number: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``2 files``, ``12,000 files``; ``many`` for a plural that is not ``word`` +
    s."""
    return f"{count(number)} {word if number == 1 else many or word + 's'}"


def number(value: float) -> str:
    """A float field's value as a user writes it, and as it reads back: the shortest decimal that
    is the same 32-bit float (``0.1``, not ``0.10000000149011612``; the fields are 32-bit), in
    Python's notation (``10.0``, ``1e-07``, ``nan``, ``-inf``). Findings, ``explain`` and fixes all
    write numbers with this, so a value quoted in a message is the one a fix would write."""
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    single = struct.unpack("f", struct.pack("f", value))[0]
    for digits in range(1, 10):
        shortest = f"{value:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(shortest)))[0] == single:
            break
    return repr(float(shortest))


def listed(names: list[str], most: int = 8) -> str:
    """Names quoted in a message, the first ``most`` of them: ``'a', 'b' and 3 more``."""
    shown = ", ".join(repr(name) for name in names[:most])
    return shown + (f" and {count(len(names) - most)} more" if len(names) > most else "")


def ticked(names: Iterable[str], most: int = 8, none: str = "") -> str:
    """Names (escaped already) in backticks, as a message lists them, the first ``most`` of
    them: ```a`, `b` and 3 more`` (a stack of 3,000 tables is not a 3,000-name message);
    ``none`` for none."""
    every = list(names)
    shown = ", ".join(f"`{name}`" for name in every[:most]) or none
    return shown + (f" and {count(len(every) - most)} more" if len(every) > most else "")


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
