"""Suppressions: comments in text-format files, and ``[[tool.tpuemb.suppress]]`` entries for the
JSON and binary files that cannot hold comments.

    dimension: 0  # tpuemb: ignore[TE403] placeholder table, sized by the launcher
    # tpuemb: ignore[unused-table] kept for the next model version
    table_descriptor { ... }
    # tpuemb: file-ignore[TE406] reason           (before the first field)

A suppression names its rules (codes or names) and gives a reason; one without rules is refused
as too broad, one without a reason is refused when ``require-reason`` is on (the default), and one
that suppresses nothing is reported (``unused-suppression``, fixable by removal).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import NamedTuple

from tpuemb_cli.engine.selectors import expand, field_pattern, glob_matches, selector_codes
from tpuemb_cli.engine.settings import Settings, Suppression
from tpuemb_cli.load import Document
from tpuemb_cli.load.source import SourceMap, Span
from tpuemb_cli.load.text_tokenizer import first_token_start
from tpuemb_cli.model.edits import TextEdit
from tpuemb_cli.model.findings import Finding, Violation
from tpuemb_cli.rules import CATALOG
from tpuemb_cli.rules.suppression import invalid_suppression as invalid
from tpuemb_cli.rules.suppression import unused_suppression as unused

DIRECTIVE = re.compile(
    r"#\s*tpuemb\s*:\s*(?P<kind>file-ignore|ignore)\b(?P<codes>\[[^\]]*\])?[ \t]*(?P<reason>[^#]*)"
)
INVALID = "TE901"
UNUSED = "TE902"
# The findings a file that does not parse can still have: the loader's.
_PARSE_CODES = frozenset(entry.code for entry in CATALOG if entry.family == "parse")


class Directive(NamedTuple):
    kind: str  # "ignore" or "file-ignore"
    codes: frozenset[str]
    written: tuple[str, ...]  # the rules as written, for messages
    line: int  # the line whose findings it suppresses (0: the whole file)
    span: Span  # the directive's text, from its `#`
    removal: TextEdit  # what deleting it takes


class Problem(NamedTuple):
    """A suppression refused (TE901) or unused (TE902): the rule's violation, at ``span``;
    ``codes``: the rules it names (none when it names none tpuemb knows)."""

    code: str
    violation: Violation
    span: Span
    codes: frozenset[str] = frozenset()


_CODE = re.compile(r"\S")  # where a line has something besides spaces


@cache
def _codes(selector: str) -> frozenset[str]:
    """``selector_codes``, once per spelling: a file has thousands of directives, few spellings."""
    return frozenset(selector_codes(selector))


class _Lines:
    """The text's lines, read once for all the directives of a file: a run of comment lines
    with a directive on each must not re-read the file per directive."""

    def __init__(self, source: SourceMap) -> None:
        self.source = source
        self._next_code: list[int] | None = None

    def next_code_line(self, line: int) -> int:
        """The first line after ``line`` that is neither blank nor only a comment."""
        if self._next_code is None:
            lines = self.source.text.split("\n")
            # next_code[n]: the first code line after line n (0: none), filled from the end.
            next_code = [0] * (len(lines) + 1)
            following = 0
            for number in range(len(lines), 0, -1):
                next_code[number] = following
                stripped = lines[number - 1].strip()
                if stripped and not stripped.startswith("#"):
                    following = number
            self._next_code = next_code
        found = self._next_code[line] if line < len(self._next_code) else 0
        return found or line + 1


def _removal(text: str, span: Span, line: Span, alone: bool) -> TextEdit:
    """Deleting a directive: the whole ``line`` when it is alone on it (nothing before it, said
    by ``alone``, and nothing after it), else it and the spaces before it."""
    start, end = span
    line_start, line_end = line
    if alone and _CODE.search(text, end, line_end) is None:
        return TextEdit(line_start, min(line_end + 1, len(text)), "")
    while start > line_start and text[start - 1] in " \t":
        start -= 1
    return TextEdit(start, end, "")


def _refusal(
    kind: str, written: tuple[str, ...], reason: str, settings: Settings, after_fields: bool
) -> Violation | None:
    unknown = [code for code in written if not _codes(code)]
    if not written:
        return invalid.without_rules(kind)
    if unknown:
        return invalid.unknown_rule(unknown[0])
    if settings.require_reason and not reason:
        return invalid.without_reason(kind, written)
    if kind == "file-ignore" and after_fields:
        return invalid.file_ignore_after_fields()
    return None


def parse(document: Document, settings: Settings) -> tuple[list[Directive], list[Problem]]:
    """The suppression directives in a text document's comments, and the ones refused.

    Linear in the text and the directives: a comment's directives are found in one pass, and
    where each line starts and which line is the next one of code are read from indexes.
    """
    source = document.source_map
    if source is None or not document.comments:
        return [], []
    text = source.text
    first_field = first_token_start(text)
    lines = _Lines(source)
    directives: list[Directive] = []
    problems: list[Problem] = []
    for offset, comment in document.comments:
        matches = list(DIRECTIVE.finditer(comment))
        if not matches:
            continue
        line, column = source.line_col(offset)
        line_start = offset - column + 1
        line_end = text.find("\n", offset)
        bounds = (line_start, len(text) if line_end == -1 else line_end)
        # Only the comment's first directive can be alone on its line: the others follow it.
        alone = not text[line_start:offset].strip()
        comment_end = offset + len(comment.rstrip())
        for index, match in enumerate(matches):
            start = offset + match.start()
            end = offset + matches[index + 1].start() if index + 1 < len(matches) else comment_end
            span = (start, end)
            kind, codes_text, reason = match["kind"], match["codes"], match["reason"].strip()
            written = tuple(c.strip() for c in (codes_text or "[]")[1:-1].split(",") if c.strip())
            codes = frozenset(c for code in written for c in _codes(code))
            refused = _refusal(kind, written, reason, settings, offset > first_field)
            if refused is not None:
                problems.append(Problem(INVALID, refused, span, codes))
                continue
            if kind == "file-ignore":
                target = 0
            elif not alone:
                target = line  # at the end of a line: that line
            else:
                target = lines.next_code_line(line)  # alone on a line: the next one
            first = index == 0 and not comment[: match.start()].strip()
            removal = _removal(text, span, bounds, alone and first)
            directives.append(Directive(kind, codes, written, target, span, removal))
    return directives, problems


class _Entries:
    """A configuration's ``suppress`` entries, indexed: a baseline holds one entry per finding,
    so scanning them all for every file and every finding would be quadratic.

    An entry whose ``file`` has no wildcard is found by a dictionary look-up (the file's name,
    or its path and parent folders relative to the configuration); a glob is tried once per file
    however many entries share it, as ``glob_matches`` does. Within a file, see ``_Fields``.
    """

    def __init__(self, settings: Settings) -> None:
        self.source = settings.suppress
        self.codes = {entry.number: expand(entry.rules) for entry in settings.suppress}
        self._by_name: dict[str, list[Suppression]] = {}
        self._by_path: dict[str, list[Suppression]] = {}
        self._globs: dict[str, list[Suppression]] = {}
        for entry in settings.suppress:
            pattern = entry.file
            if "*" in pattern or "?" in pattern or pattern.endswith("/"):
                self._globs.setdefault(pattern, []).append(entry)
            elif "/" in pattern:
                self._by_path.setdefault(pattern, []).append(entry)
            else:
                self._by_name.setdefault(pattern, []).append(entry)

    def for_file(self, file: str, settings: Settings) -> list[Suppression]:
        """The entries whose ``file`` matches ``file``, in their order in the configuration."""
        relative = settings.relative(file)
        if relative is None:
            relative = Path(file).as_posix()
        found = list(self._by_name.get(relative.rsplit("/", 1)[-1], ()))
        if self._by_path:
            found += self._by_path.get(relative, ())
            # A folder's path matches the files under it (``pattern/**``; the ``.*`` of that
            # regular expression does not cross a newline).
            slash = relative.find("/")
            while slash != -1:
                if "\n" not in relative[slash + 1 :]:
                    found += self._by_path.get(relative[:slash], ())
                slash = relative.find("/", slash + 1)
        for pattern, entries in self._globs.items():
            if glob_matches(pattern, file, settings):
                found += entries
        found.sort(key=lambda entry: entry.number)
        return found


class _Fields:
    """One file's entries, by rule and field, so that each finding looks up the few that can
    match it, and the time is linear in findings plus entries:

    - a field without ``*``: a dictionary look-up of (rule, field);
    - a field of ``*`` only (the default: the whole file): the rule covers every finding;
    - a pattern: under its rule and its literal ends (what comes before its first ``*`` and
      after its last), looked up by the finding field's ends of the same lengths (few lengths,
      however many patterns), and matched once per distinct pattern.

    The entries a key finds are marked used once, then dropped from its list (the key stays):
    a thousand findings under one entry mark it once.
    """

    def __init__(self, key_of: str, config_use: ConfigUse) -> None:
        self.key_of, self.config_use = key_of, config_use
        self.exact: dict[tuple[str, str], list[Suppression]] = {}
        self.anywhere: dict[str, list[Suppression]] = {}
        # rule -> (prefix, suffix) -> pattern -> entries; rule -> the (prefix, suffix) lengths.
        self.shaped: dict[str, dict[tuple[str, str], dict[str, list[Suppression]]]] = {}
        self.lengths: dict[str, set[tuple[int, int]]] = {}

    def add(self, code: str, entry: Suppression) -> None:
        field = entry.field
        if "*" not in field:
            self.exact.setdefault((code, field), []).append(entry)
        elif not field.strip("*"):
            self.anywhere.setdefault(code, []).append(entry)
        else:
            prefix, suffix = field[: field.index("*")], field[field.rindex("*") + 1 :]
            ends = self.shaped.setdefault(code, {}).setdefault((prefix, suffix), {})
            ends.setdefault(field, []).append(entry)
            self.lengths.setdefault(code, set()).add((len(prefix), len(suffix)))

    def __bool__(self) -> bool:
        return bool(self.exact or self.anywhere or self.shaped)

    def _use(self, entries: list[Suppression]) -> None:
        if entries:
            self.config_use.used.update((self.key_of, entry.number) for entry in entries)
            entries.clear()

    def cover(self, rule: str, field: str) -> bool:
        """Whether an entry covers the finding of ``rule`` at ``field``; marks the ones that do."""
        covered = False
        for entries in (self.exact.get((rule, field)), self.anywhere.get(rule)):
            if entries is not None:
                covered = True
                self._use(entries)
        shaped = self.shaped.get(rule)
        if shaped is not None:
            size = len(field)
            for prefix, suffix in self.lengths[rule]:
                if prefix + suffix > size:
                    continue
                candidates = shaped.get((field[:prefix], field[size - suffix :]))
                for pattern, entries in (candidates or {}).items():
                    if field_pattern(pattern).match(field):
                        covered = True
                        self._use(entries)
        return covered


class ConfigUse:
    """Which configuration suppressions matched a linted file, and which suppressed something."""

    def __init__(self) -> None:
        self.matched: dict[tuple[str, int], tuple[Settings, int]] = {}
        self.used: set[tuple[str, int]] = set()
        self._entries: _Entries | None = None

    def entries(self, settings: Settings) -> _Entries:
        """``settings``' entries, indexed once for every file they govern."""
        if self._entries is None or self._entries.source is not settings.suppress:
            self._entries = _Entries(settings)
        return self._entries

    def unused(self) -> Iterable[tuple[Settings, int]]:
        for key, value in self.matched.items():
            if key not in self.used:
                yield value


def apply(
    findings: Sequence[Finding],
    document: Document,
    settings: Settings,
    enabled: frozenset[str],
    config_use: ConfigUse,
    scope: frozenset[str] | None = None,
) -> tuple[list[Finding], list[Problem]]:
    """The findings no suppression covers, and the problems with the suppressions themselves.

    Each finding looks up the directives of its line (and the file's) and the entries of its
    rule and field, so that the time is linear in findings plus suppressions.
    """
    directives, problems = parse(document, settings)
    # (line, rule) -> the directives that cover it (line 0: the whole file). A list is emptied
    # once its directives are marked used: a thousand findings under one file-ignore mark it once.
    covering: dict[tuple[int, str], list[int]] = {}
    for index, directive in enumerate(directives):
        for code in directive.codes:
            covering.setdefault((directive.line, code), []).append(index)
    used: set[int] = set()
    key_of = str(settings.path)
    fields = _Fields(key_of, config_use)
    if settings.suppress:
        indexed = config_use.entries(settings)
        for entry in indexed.for_file(document.on_disk(), settings):
            # Else the rules never ran (it could not be used), or they are not this run's.
            if document.message is not None and indexed.codes[entry.number] & enabled:
                config_use.matched.setdefault((key_of, entry.number), (settings, entry.number))
            for code in indexed.codes[entry.number]:
                fields.add(code, entry)
    kept: list[Finding] = []
    name = document.name
    for finding in findings:
        # A finding placed in another file (a change to what the new file of a diff no longer
        # has) is covered here by the whole file's directives and by entries only.
        position = finding.position if finding.file == name else None
        line = position.line if position is not None else -1
        covered = False
        for key in ((0, finding.rule), (line, finding.rule)):
            indexes = covering.get(key)
            if indexes is not None:
                covered = True
                used.update(indexes)
                indexes.clear()
        if fields and fields.cover(finding.rule, finding.field):
            covered = True
        if not covered:
            kept.append(finding)
    # In a file that does not parse, the rules never ran: a directive for one of them suppressed
    # nothing only because there was nothing to check, and is not reported unused.
    parsed = document.message is not None
    for index, directive in enumerate(directives):
        if index in used or not directive.codes & enabled:
            continue
        if not parsed and not directive.codes <= _PARSE_CODES:
            continue
        # The rules another command judges (``scope``: this command's): not said unused here,
        # and the comment stays for them.
        others: tuple[str, ...] = ()
        written = directive.written
        if scope is not None and not directive.codes <= scope:
            others = tuple(w for w in written if _codes(w) and not _codes(w) & scope)
            written = tuple(w for w in written if w not in others)
        problems.append(
            Problem(
                UNUSED,
                unused.unused_comment(written, directive.removal, others),
                directive.span,
                directive.codes,
            )
        )
    return kept, problems
