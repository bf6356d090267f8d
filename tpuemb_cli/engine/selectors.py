"""What settings name: rules (codes, names, code prefixes) and files and fields (globs)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpuemb_cli.engine.settings import Settings


def _rule_codes() -> tuple[Any, ...]:
    from tpuemb_cli.rules import CATALOG

    return CATALOG


def selector_codes(selector: str) -> set[str]:
    """The codes a selector names: a code, a kebab-case name, or a code prefix (``TE1``, ``TE``)."""
    from tpuemb_cli.rules import BY_CODE, BY_NAME

    key = selector.strip()
    # The rule of that code or name, looked up (codes and names are unique: tests/test_catalog.py),
    # not searched for among the catalog's rows (each start-up reads the default `select`, "TE").
    named = (BY_CODE.get(key.upper()), BY_NAME.get(key.lower()))
    codes = {entry.code for entry in named if entry is not None}
    if not codes and key and key.upper()[:2] == "TE":
        codes = {r.code for r in _rule_codes() if r.code.startswith(key.upper())}
    return codes


def unknown_rule(selector: str) -> str:
    """What to say of a selector that names no rule: with the rule name it is closest to, if one
    is close (a misspelled name; codes are numbers, too alike for closeness to mean anything)."""
    from tpuemb_cli.model.nearest import did_you_mean, nearest

    close = nearest(selector, [rule.name for rule in _rule_codes()])
    return f"unknown rule {selector!r}" + (
        did_you_mean(close) if close else " (`tpuemb rules` lists them)"
    )


def expand(selectors: Iterable[str]) -> set[str]:
    codes: set[str] = set()
    for selector in selectors:
        codes |= selector_codes(selector)
    return codes


@cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out) + r"\Z")


def glob_matches(pattern: str, file: str, settings: Settings) -> bool:
    """``*`` within a folder, ``**`` across folders; a pattern without ``/`` matches file names."""
    relative = settings.relative(file)
    if relative is None:
        from pathlib import Path

        relative = Path(file).as_posix()
    target = relative if "/" in pattern.rstrip("/") else relative.rsplit("/", 1)[-1]
    if pattern.endswith("/"):
        pattern += "**"
    return _glob_regex(pattern).match(target) is not None or (
        "/" in pattern and _glob_regex(pattern + "/**").match(relative) is not None
    )


@cache
def field_pattern(pattern: str) -> re.Pattern[str]:
    """A field-path pattern: literal, except ``*``, which matches anything (dots included)."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")) + r"\Z")
