"""words.count: the one number renderer, also for integers past what Python writes in digits."""

from __future__ import annotations

from tpuemb_cli.model.words import count


def test_counts() -> None:
    assert [count(812), count(12_000), count(-2_000_000)] == ["812", "12,000", "-2,000,000"]


def test_an_integer_too_long_for_digits_is_told_by_its_size() -> None:
    assert count((2**63 - 1) ** 500) == "an integer of 31,500 bits"
    assert count(-(2**20_000)) == "-an integer of 20,001 bits"
