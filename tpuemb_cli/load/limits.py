"""What the loaders refuse that protobuf, ``json`` and PyYAML do not refuse for us, and how a
refused value is shown in a message.

- YAML aliases: a few hundred bytes of nested anchors ("billion laughs") expand to billions of
  nodes, and an alias inside the node it names (``&a [*a]``) to an infinite one. The YAML loader
  counts what its aliases add while it builds the document and stops at ``MAX_ALIAS_NODES``.
- Lone surrogates: ``"\\ud800"`` in JSON or YAML decodes to a code point that is not a
  character; protobuf refuses to store it (and upb fails on looking it up). The loaders report it
  where it is written and read the string with U+FFFD in its place.
- Nesting: protobuf refuses a message nested deeper than ``document.MAX_DEPTH`` (100) levels; in
  JSON and YAML a message is a mapping in a list in a mapping..., so the data may nest twice as
  deep (``max_nesting``). YAML is refused past that while it is composed; JSON past what
  ``json.loads`` reads (about a thousand levels: Python's recursion limit) is refused at the
  bracket that opens the first level too many, found without building anything.
- Huge integers: Python refuses to read a decimal integer of more than 4,300 digits (its
  ``int_max_str_digits``), and no field holds more than 20. The loaders report such a number where
  it is written, and read it as ``OVERSIZED``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable

# Nodes that the aliases of one YAML document may add, expanded (a node reached through two
# aliases counts twice). A spec that reuses an optimizer block for every one of 5,000 tables uses
# about a tenth of it; converting this many nodes takes well under a second.
MAX_ALIAS_NODES = 100_000


def max_nesting(max_depth: int) -> int:
    """How deep JSON or YAML data may nest to hold messages ``max_depth`` deep: a message is a
    mapping, often in a list, in a mapping."""
    return 2 * max_depth + 2


def nests_deeper(value: object, limit: int) -> bool:
    """Whether parsed JSON data nests lists and objects more than ``limit`` deep (a scalar is at
    no level; the outermost list or object at level 1). Walked with a stack, and stopped at the
    first level too many: the data may nest as deep as ``json.loads`` reads, past Python's
    recursion limit for any pass that recurses."""
    waiting: list[tuple[object, int]] = [(value, 0)]
    while waiting:
        current, depth = waiting.pop()
        if isinstance(current, dict):
            items: Iterable[object] = current.values()
        elif isinstance(current, list):
            items = current
        else:
            continue
        if depth == limit:
            return True
        waiting.extend((item, depth + 1) for item in items if isinstance(item, (dict, list)))
    return False


# The longest decimal integer Python converts (3.11+: sys.get_int_max_str_digits; 0: no limit).
_PYTHON_DIGITS = getattr(sys, "get_int_max_str_digits", lambda: 0)() or 4300
INT_DIGITS = min(_PYTHON_DIGITS, 4300)

# Patterns, not compiled ones: ``re`` compiles (and caches) them when a text that is not ASCII
# first needs them. Each takes half a millisecond to compile, which every start-up paid.
_SURROGATE = "[\ud800-\udfff]"
_PAIR = "[\ud800-\udbff][\udc00-\udfff]"


class _Oversized:
    """A number too long to read; what a JSON or YAML loader reads one as (it has reported it)."""

    def __repr__(self) -> str:
        return "OVERSIZED"


OVERSIZED = _Oversized()


def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds a UTF-16 surrogate code point (which UTF-8 cannot encode)."""
    return not text.isascii() and re.search(_SURROGATE, text) is not None


def join_pairs(text: str) -> str:
    """``text`` with each high-low surrogate pair made the character it stands for (PyYAML reads
    ``"\\ud83d\\ude00"`` as two code points, JSON as one character)."""
    return re.sub(
        _PAIR, lambda m: m.group().encode("utf-16", "surrogatepass").decode("utf-16"), text
    )


def repaired(text: str) -> str:
    """``text`` with its pairs joined and each lone surrogate replaced by U+FFFD."""
    return re.sub(_SURROGATE, "\ufffd", join_pairs(text))


def escaped(text: str) -> str:
    """``text`` safe to print: each surrogate as its ``\\uXXXX`` escape."""
    if not has_surrogates(text):
        return text
    return re.sub(_SURROGATE, lambda m: f"\\u{ord(m.group()):04x}", text)


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate of ``text`` as its escape (``\\ud800``), if any."""
    if text.isascii():  # most of them: a Keras model's every string is asked about
        return None
    found = re.search(_SURROGATE, join_pairs(text))
    return f"\\u{ord(found.group()):04x}" if found else None


def decimal_digits(text: str) -> int:
    """How many digits the decimal integer ``text`` (a sign and ``_`` allowed) has; 0 if it is
    not one."""
    body = text.strip().lstrip("+-").replace("_", "")
    return len(body) if body.isdigit() and body.isascii() else 0


def too_long(text: str) -> bool:
    """Whether ``text`` is a decimal integer longer than Python reads."""
    return len(text) > INT_DIGITS and decimal_digits(text) > INT_DIGITS


def shown(text: str, width: int = 80) -> str:
    """``text`` for a message: surrogates escaped, and cut in the middle when longer than
    ``width`` (a 5,000-digit number is shown by its ends and its length)."""
    text = escaped(text)
    if len(text) <= width:
        return text
    keep = width // 2
    return f"{text[:keep]}...{text[-keep // 2 :]} ({len(text):,} characters)"


def integer_text(number: int) -> str:
    """``number`` for a message, also when it is too long for ``str`` (an integer that YAML's
    base-60 notation builds from short parts)."""
    if number.bit_length() < 3 * INT_DIGITS:
        return shown(str(number))
    return f"{'-' if number < 0 else ''}an integer of {number.bit_length():,} bits"


# The largest input read (bytes): larger ones are refused before they are read. The command
# line's --max-file-size default, and the language server's limit on a file it reads from disk.
DEFAULT_MAX_BYTES = 256 * 1024 * 1024

# The most an archive's member may take decompressed (a `.keras`'s config.json): the command
# line's --max-file-size, set once per run by the CLI before any input is read (kept here, which
# every run imports, rather than in the archive reader, which only archives need).
DEFAULT_MAX_MEMBER_BYTES = 256 * 1024 * 1024
_max_member_bytes = DEFAULT_MAX_MEMBER_BYTES


def set_max_member_bytes(limit: int) -> None:
    """Sets the largest an archive's member may be decompressed (``--max-file-size``)."""
    global _max_member_bytes
    _max_member_bytes = limit


def max_member_bytes() -> int:
    return _max_member_bytes
