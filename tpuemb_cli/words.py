"""Words in messages: a count with its noun, in the singular or the plural as the count says."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``2 files``; ``many`` for a plural that is not ``word`` + s."""
    return f"{count} {word if count == 1 else many or word + 's'}"
