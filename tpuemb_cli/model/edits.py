"""Fixes as rules describe them: changes to fields, addressed by field path.

Rules never see text, so a fix says *what* to change (set this field to that value, delete that
field); the loader's editors (``load/textedit.py``, ``load/jsonedit.py``) turn it into a minimal
text edit of the file it came from. Binary files get no fixes.

Imported when a rule makes a fix, not before: a clean config does not pay for its classes.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from tpuemb_cli.model.paths import FieldPath


class SetValue(NamedTuple):
    """Set the scalar at ``path`` to ``value``, adding the field if it is absent."""

    path: FieldPath
    value: int | float | bool


class DeleteField(NamedTuple):
    path: FieldPath


class TextEdit(NamedTuple):
    """Replace characters ``start:end`` of the text (for edits of comments, not fields)."""

    start: int
    end: int
    replacement: str


Edit: TypeAlias = SetValue | DeleteField | TextEdit


class Fix(NamedTuple):
    """``safe``: applying it cannot change how the model trains (``--fix``); unsafe fixes need
    ``--unsafe-fixes``."""

    edits: tuple[Edit, ...]
    safe: bool
    title: str


def line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The start of the line ``start`` is on and the end (before its newline) of ``end``'s."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return line_start, len(text) if line_end == -1 else line_end


def whole_lines(text: str, start: int, end: int) -> TextEdit | None:
    """Deletes the lines ``[start, end)`` stands on, newline included, when nothing else is on
    them (a deleted field leaves no blank line); None when something is."""
    line_start, line_end = line_bounds(text, start, end)
    if text[line_start:start].strip() or text[end:line_end].strip():
        return None
    return TextEdit(line_start, min(line_end + 1, len(text)), "")
