"""The dynamic learning-rate tags missing below the highest one held: the gap two rules report
(``dynamic-tag-gap`` on a config, ``spec-pinned-tag`` on a spec's pinned tags).

Tags are numbers the document writes (up to 2^31 - 1, or 2^63 - 1 in a spec), so the gap is
counted, never listed: only the first few missing tags are named, found within as many steps as
there are held tags.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

SHOWN = 10  # missing tags named in a message


class Gap(NamedTuple):
    first: tuple[int, ...]  # the lowest missing tags, at most SHOWN
    total: int  # how many are missing in all

    def shown(self) -> str:
        """The first missing tags, with "..." when there are more."""
        listed = ", ".join(str(tag) for tag in self.first)
        return listed + (" ..." if self.total > len(self.first) else "")


def missing(held: Collection[int], below: int) -> Gap:
    """The tags in ``0..below - 1`` that ``held`` (tags >= 0) does not hold."""
    total = max(0, below - sum(1 for tag in set(held) if 0 <= tag < below))
    first: list[int] = []
    tag = 0
    while len(first) < min(SHOWN, total):  # at most len(held) + SHOWN steps
        if tag not in held:
            first.append(tag)
        tag += 1
    return Gap(tuple(first), total)
