"""rules/lib/overlaps.py (TE685/TE686's one-pass comparison, issue 36) against the plain
comparison of each span with every earlier one, on drawn spans: empty ones, equal ones, nested
ones, out of order and backwards."""

from __future__ import annotations

import random

from tpuemb_cli.rules.lib.overlaps import _scan, first_overlaps


def test_the_first_overlap_is_the_plain_comparisons() -> None:
    drawn = random.Random(36)
    for _ in range(3000):
        spans = []
        for _ in range(drawn.randint(0, 14)):
            first = drawn.randint(-3, 15)
            spans.append((first, first + drawn.choice([0, 0, 1, 2, 3, 5, 9])))
        if spans and drawn.random() < 0.05:
            spans[drawn.randrange(len(spans))] = (5, 2)  # backwards: a negative size
        assert first_overlaps(spans) == _scan(spans), spans


def test_spans_in_order_and_reversed() -> None:
    spans = [(index * 8, index * 8 + 8) for index in range(1000)]
    assert first_overlaps(spans) == [None] * 1000
    assert first_overlaps(spans[::-1]) == [None] * 1000
    chained = [(index * 4, index * 4 + 8) for index in range(1000)]
    assert first_overlaps(chained) == [None, *range(999)]
