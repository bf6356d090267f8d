"""The first earlier span each span of a list overlaps, in n log n (one huge stack's tables or
features: comparing each with every earlier one took 50 s for 50,000 tables).

A span is ``(first, end)``, half-open; two spans overlap when ``first_j < end_i`` and
``first_i < end_j`` -- so an empty span (``first == end``) overlaps a span strictly around its
place, and never another empty one. "First" is the earliest in the list, the one a scan from the
start would meet: the rules' messages name it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

_NONE = 1 << 62  # no index: above every list index


def first_overlaps(spans: Sequence[tuple[int, int]]) -> list[int | None]:
    """For each span, the index of the first earlier span it overlaps, or None."""
    found: list[int | None] = [None] * len(spans)
    # Spans in order, each past every earlier one's end (the library's layouts), overlap nothing:
    # only the rest need the search below.
    pending, high = [], None
    for index, (first, end) in enumerate(spans):
        if end < first:
            return _scan(spans)  # a span backwards (negative sizes): the plain comparison
        if index and not (high is not None and first >= high):
            pending.append(index)
        high = end if high is None else max(high, end)
    if not pending:
        return found
    # Doubled coordinates: a non-empty span covers the closed range [2 first, 2 end - 2] (its
    # rows), an empty one the odd point 2 first - 1 (the boundary it sits on).
    points = sorted({p for first, end in spans for p in (2 * first - 1, 2 * first, 2 * end - 2)})
    size = 1
    while size < len(points):
        size *= 2
    starts = [_NONE] * (2 * size)  # min index of a span starting at each point (a segment tree)
    cover = [-1] * len(points)  # the first span covering each point (spans paint once)
    skip = list(range(len(points) + 1))  # the next point not yet covered (union-find)

    def at(point: int) -> int:
        return bisect_left(points, point)

    def uncovered(position: int) -> int:
        root = position
        while skip[root] != root:
            root = skip[root]
        while skip[position] != root:
            skip[position], position = root, skip[position]
        return root

    def starting(low: int, high: int) -> int:  # min over [low, high] of `starts`
        best, low, high = _NONE, low + size, high + size + 1
        while low < high:
            if low & 1:
                best, low = min(best, starts[low]), low + 1
            if high & 1:
                high -= 1
                best = min(best, starts[high])
            low, high = low // 2, high // 2
        return best

    wanted = set(pending)
    for index, (first, end) in enumerate(spans):
        empty = first == end
        if index in wanted:
            covering = cover[at(2 * first - 1 if empty else 2 * first)]
            best = covering if covering >= 0 else _NONE
            if not empty:
                best = min(best, starting(at(2 * first), at(2 * end - 2)))
            if best < _NONE:
                found[index] = best
        # This span: its start point, then the points it covers that no earlier span did.
        node = at(2 * first - 1 if empty else 2 * first) + size
        while node and starts[node] > index:
            starts[node], node = index, node // 2
        if not empty:
            position, last = uncovered(at(2 * first)), at(2 * end - 2)
            while position <= last:
                cover[position] = index
                skip[position] = position + 1
                position = uncovered(position + 1)
    return found


def _scan(spans: Sequence[tuple[int, int]]) -> list[int | None]:
    return [
        next((j for j in range(i) if spans[j][0] < end and first < spans[j][1]), None)
        for i, (first, end) in enumerate(spans)
    ]
