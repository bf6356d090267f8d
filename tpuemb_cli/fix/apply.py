"""Applying fixes to a document's text: a policy in, the fixed text and what it took out.

Fixes are applied as minimal text edits made by the document's encoding. Each pass makes every
fix that does not overlap another at once, then parses and lints the result a single time; the
pass is kept if the file still parses, no parse problem and no error is new. When a pass is not
kept, its fixes are tried one at a time to find the ones to blame (those are not tried again).
Passes repeat until nothing changes -- a fixed point, so a second ``--fix`` changes nothing -- or
``MAX_PASSES`` is reached, which ``Fixed.stopped`` says. A file that does not parse is not fixed
at all: its rules did not run, and no edit can be checked against it. Nothing here prints or
writes a file: the caller decides what to do with the result.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from tpuemb_cli.load import Document, encodings, load_bytes
from tpuemb_cli.model.edits import Fix, TextEdit
from tpuemb_cli.model.findings import Finding, Severity

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load.source import SourceMap

# Each pass makes every independent fix, so a pass is needed only where one fix's edit overlaps
# another's (or a fix makes a new finding): a handful in practice. The bound is for a fix that
# would undo another forever.
MAX_PASSES = 100
DOES_NOT_PARSE = "not fixed: the file does not parse"


class FixPolicy(NamedTuple):
    """Which fixes to apply: the safe ones, and with ``unsafe`` the unsafe ones too; of the
    rules ``fixable`` names (None: all), but none of ``unfixable`` (ruff's --fixable and
    --unfixable, as rule codes)."""

    unsafe: bool = False
    fixable: frozenset[str] | None = None
    unfixable: frozenset[str] = frozenset()

    def allows(self, finding: Finding) -> bool:
        fix = finding.autofix
        return (
            fix is not None
            and (fix.safe or self.unsafe)
            and (self.fixable is None or finding.rule in self.fixable)
            and finding.rule not in self.unfixable
        )


class Fixed(NamedTuple):
    """What fixing a document gave: its text afterwards (the same text when nothing applied, None
    when it cannot be fixed -- ``refused`` says why), the document and findings that text has.
    ``stopped`` says so when the passes ran out before a fixed point."""

    text: str | None
    document: Document
    findings: list[Finding]
    refused: str | None = None
    stopped: str | None = None
    applied: int = 0  # how many fixes were made (what the summary's "N fixed" counts)
    # The rule (code, name) of each fix made, for --show-fixes.
    fixed_rules: tuple[tuple[str, str], ...] = ()
    # The rule codes of the fixes not made because each would add an error (or a parse problem).
    withheld: tuple[str, ...] = ()


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str | None:
    """``text`` with ``edits`` made; None if two edits overlap."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end:
            return None
    for edit in reversed(ordered):
        text = text[: edit.start] + edit.replacement + text[edit.end :]
    return text


def reload(document: Document, text: str) -> Document:
    """``text`` (``document``'s, edited) read as ``document`` was: its name, encoding and type."""
    return load_bytes(text.encode("utf-8"), document.name, document.format, document.message_type)


def relint(document: Document, engine: Engine) -> list[Finding]:
    """The findings of an edited document, as the workspace lints one: its facts made once
    (``facts_of``) and passed. Every re-lint of changed text -- a fix's pass here, a baseline's
    comments in ``cli.fixing`` -- is this one."""
    from tpuemb_cli.spec.facts import facts_of

    return engine.lint(document, None, facts_of(document))


def _errors(findings: Sequence[Finding]) -> set[tuple[str, str, str]]:
    return {(f.rule, f.field, f.message) for f in findings if f.severity is Severity.ERROR}


def _problems(document: Document) -> set[tuple[str, str, object]]:
    return {(p.rule, p.message, p.path) for p in document.problems}


def _key(finding: Finding) -> tuple[str, str, str]:
    return (finding.rule, finding.field, finding.message)


def _independent(
    findings: Sequence[Finding], edits_of: Callable[[Finding], Sequence[TextEdit] | None]
) -> list[tuple[Finding, Sequence[TextEdit]]]:
    """The fixes of ``findings`` whose edits touch no other chosen fix's text, in order. Two
    edits at one place conflict even when empty: their order would be a guess."""
    chosen: list[tuple[Finding, Sequence[TextEdit]]] = []
    taken: list[tuple[int, int]] = []
    for finding in findings:
        edits = edits_of(finding)
        if not edits:
            continue
        spans = [(e.start, e.end) for e in edits]
        if any(
            (start < other_end and other_start < end) or start == other_start
            for start, end in spans
            for other_start, other_end in taken
        ):
            continue  # a later pass, on the text this one gives
        chosen.append((finding, edits))
        taken.extend(spans)
    return chosen


class _Fixer:
    """One document's passes: the text so far, and the fixes found to do harm."""

    def __init__(
        self,
        document: Document,
        findings: list[Finding],
        engine: Engine,
        policy: FixPolicy,
        editor: Callable[[Fix, SourceMap], Sequence[TextEdit]],
    ) -> None:
        self.document, self.findings = document, findings
        self.engine, self.policy, self.editor = engine, policy, editor
        self.harmful: set[tuple[str, str, str]] = set()
        self.applied = 0
        self.fixed_rules: list[tuple[str, str]] = []

    def edits_of(self, finding: Finding) -> Sequence[TextEdit] | None:
        if not self.policy.allows(finding) or _key(finding) in self.harmful:
            return None
        assert finding.autofix is not None and self.document.source_map is not None
        return self.editor(finding.autofix, self.document.source_map)

    def attempt(self, edits: Sequence[TextEdit]) -> tuple[Document, list[Finding]] | None:
        """The document and findings ``edits`` give, if they keep the file parsing and add no
        parse problem and no error; else None."""
        assert self.document.text is not None
        candidate = apply_edits(self.document.text, edits)
        if candidate is None or candidate == self.document.text:
            return None
        fixed = reload(self.document, candidate)
        if fixed.message is None or not _problems(fixed) <= _problems(self.document):
            return None  # the fix would break the file
        new_findings = relint(fixed, self.engine)
        if not _errors(new_findings) <= _errors(self.findings):
            return None  # the fix would introduce an error
        return fixed, new_findings

    def one_pass(self) -> bool:
        """Makes this pass's fixes; False when none could be made (a fixed point)."""
        chosen = _independent(self.findings, self.edits_of)
        if not chosen:
            return False
        result = self.attempt([edit for _, edits in chosen for edit in edits])
        made = [finding for finding, _ in chosen]
        if result is None and len(chosen) > 1:
            # Some fix, or two together, would do harm: one at a time, to find which.
            for finding, edits in chosen:
                result = self.attempt(edits)
                made = [finding]
                if result is not None:
                    break
                self.harmful.add(_key(finding))
        elif result is None:
            self.harmful.add(_key(chosen[0][0]))
        if result is not None:
            self.document, self.findings = result
            self.applied += len(made)
            self.fixed_rules += [(finding.rule, finding.name) for finding in made]
        return True


def fix_document(
    document: Document, findings: list[Finding], engine: Engine, policy: FixPolicy
) -> Fixed:
    """``document`` with every fix ``policy`` allows applied that keeps it parsing and adds no
    error."""
    if not any(policy.allows(f) for f in findings):
        return Fixed(document.text, document, findings)
    encoding = encodings.get(document.format)
    editor = encoding.editor()
    if editor is None or document.text is None or document.source_map is None:
        refusal = encoding.no_fixes or f"{encoding.name} files get no fixes"
        return Fixed(None, document, findings, refusal)
    if document.message is None:
        return Fixed(None, document, findings, DOES_NOT_PARSE)
    fixer = _Fixer(document, findings, engine, policy, editor)
    for _ in range(MAX_PASSES):
        if not fixer.one_pass():
            break
    else:
        if _independent(fixer.findings, fixer.edits_of):
            stopped = f"fixes stopped after {MAX_PASSES} passes; run --fix again"
            return Fixed(
                fixer.document.text,
                fixer.document,
                fixer.findings,
                stopped=stopped,
                applied=fixer.applied,
                fixed_rules=tuple(fixer.fixed_rules),
            )
    # A fix withheld is no longer offered: the count would promise what --fix just refused.
    findings = [f._replace(autofix=None) if _key(f) in fixer.harmful else f for f in fixer.findings]
    withheld = tuple(sorted(f.rule for f in fixer.findings if _key(f) in fixer.harmful))
    return Fixed(
        fixer.document.text,
        fixer.document,
        findings,
        applied=fixer.applied,
        fixed_rules=tuple(fixer.fixed_rules),
        withheld=withheld,
    )
