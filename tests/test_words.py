"""words.count: the one number renderer, also for integers past what Python writes in digits."""

from __future__ import annotations

from tpuemb_cli.model.words import count, listed, ticked


def test_counts() -> None:
    assert [count(812), count(12_000), count(-2_000_000)] == ["812", "12,000", "-2,000,000"]


def test_an_integer_too_long_for_digits_is_told_by_its_size() -> None:
    assert count((2**63 - 1) ** 500) == "an integer of 31,500 bits"
    assert count(-(2**20_000)) == "-an integer of 20,001 bits"


def test_listed_quotes_the_first_names_and_counts_the_rest() -> None:
    assert listed(["a"]) == "'a'"
    assert listed(["a", "b"], most=2) == "'a', 'b'"
    assert listed([f"t{i}" for i in range(1010)], most=2) == "'t0', 't1' and 1,008 more"


def test_ticked_names_the_first_names_and_counts_the_rest() -> None:
    assert ticked(["a", "b"]) == "`a`, `b`"
    assert ticked([], none="none") == "none"
    assert ticked((f"t{i}" for i in range(3000)), most=2) == "`t0`, `t1` and 2,998 more"
    # A stack of 3,000 tables in a message: eight of them.
    assert ticked(f"t{i}" for i in range(3000)).count("`") == 16
