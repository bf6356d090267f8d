"""Skipping runs of unwanted messages in protobuf text without tokenizing them.

A second parse that looks for the positions of a few fields (the findings' paths) would otherwise
tokenize the whole file again: in a 10,000-table config, the 5,000 tables before the one wanted.
Here a sibling message the parse does not want is passed over by its braces alone: a regex finds
the next brace, quote or comment, so the scan costs a few matches per message, not one per token.

Only used on text whose first parse succeeded, so every brace closes and every string ends; the
scan stops (and the token-by-token parse takes over) at anything it does not recognise.
"""

from __future__ import annotations

import re

# Whitespace and comments between tokens. Each comment runs to its line's end, so the pattern
# can split a gap one way only (`(?:\s+|#.*)*` backtracks exponentially on a failing match).
_GAP = r"\s*(?:\#[^\n]*(?:\n|\Z)\s*)*"
# A message field's head: `name {`, `name <`, `name: {` or `name: <` (identifiers as protobuf's).
_HEAD = re.compile(_GAP + r"([a-zA-Z_][0-9a-zA-Z_+-]*)" + _GAP + r":?" + _GAP + r"[{<]")
_SEPARATOR = re.compile(_GAP + r"[,;]")
# What can change the nesting: a brace, or the start of a string or comment that may hold one.
_STRUCTURE = re.compile(r"""[{}<>"'#]""")
# A string literal as text_tokenizer.TOKEN reads it (possibly unterminated at the end of a line).
_STRING = re.compile(
    r""""[^"\n\\]*(?:\\.[^"\n\\]*)*(?:"|\\?$)|'[^'\n\\]*(?:\\.[^'\n\\]*)*(?:'|\\?$)""",
    re.MULTILINE,
)


def message_head(text: str, offset: int) -> tuple[str, int] | None:
    """The field name of the message field starting at ``offset`` (after any gap) and the offset
    just past its opening brace; None when what follows is not a message field's head."""
    head = _HEAD.match(text, offset)
    if head is None:
        return None
    return head.group(1), head.end()


def body_end(text: str, offset: int) -> int:
    """The offset just past the brace that closes the message whose body starts at ``offset``;
    -1 when the text ends first."""
    level = 1
    search = _STRUCTURE.search
    while True:
        found = search(text, offset)
        if found is None:
            return -1
        at = found.start()
        char = text[at]
        if char in "{<":
            level += 1
            offset = at + 1
        elif char in "}>":
            level -= 1
            offset = at + 1
            if not level:
                return offset
        elif char == "#":
            newline = text.find("\n", at)
            offset = len(text) if newline < 0 else newline
        else:
            offset = _STRING.match(text, at).end()  # type: ignore[union-attr]  # always matches


def after_separator(text: str, offset: int) -> int:
    """``offset`` moved past a `,` or `;` that follows it (after any gap), if there is one."""
    separator = _SEPARATOR.match(text, offset)
    return offset if separator is None else separator.end()
