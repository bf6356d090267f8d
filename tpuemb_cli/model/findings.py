"""Findings: what a rule (or the loader) says is wrong, and where.

NamedTuples rather than dataclasses: they cost far less to define, and start-up time counts.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from tpuemb_cli.model.paths import FieldPath, render
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from tpuemb_cli.model.edits import Fix


class Severity(enum.IntEnum):
    """Ordered so that ``max()`` gives the worst."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.upper()]
        except KeyError:
            names = ", ".join(s.name.lower() for s in cls)
            raise ValueError(f"unknown severity {text!r} (expected one of: {names})") from None


class Violation(Record):
    """What a rule yields: a field path, a message, and the fix in words.

    Rules know nothing of files, positions, codes or severities; the engine adds those.
    """

    path: FieldPath
    message: str
    fix: str = ""
    autofix: Fix | None = None


class Position(Record):
    """1-based line and column; ``end_column`` is the column after the last character."""

    line: int
    column: int
    end_line: int
    end_column: int


# A config value as a change reports it (None: nothing on that side).
Value = str | int | float | bool | None


class Transition(Record):
    """What a change (``tpuemb diff``) did: the table it is about (None: the whole config), and
    the value before and after."""

    table: str | None
    old: Value
    new: Value


class Finding(Record):
    """A violation stamped by the engine with its file, rule, severity and position; for a
    change (``tpuemb diff``), what changed."""

    file: str
    rule: str
    name: str
    severity: Severity
    message: str
    path: FieldPath
    fix: str = ""
    position: Position | None = None
    autofix: Fix | None = None
    change: Transition | None = None
    # The archive member the position is in (``config.json`` of a ``.keras``): ``file`` is then
    # ``<archive>!<member>``; formats that point at files on disk point at ``archive``.
    member: str = ""

    @property
    def archive(self) -> str:
        """The file on disk: ``file``, or the archive of a member."""
        if self.member and self.file.endswith(f"!{self.member}"):
            return self.file[: -len(self.member) - 1]
        return self.file

    @property
    def field(self) -> str:
        return render(self.path)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        pos = self.position
        return (self.file, pos.line if pos else 0, pos.column if pos else 0, self.rule, self.field)
