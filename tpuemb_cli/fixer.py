"""Applying fixes (``--fix``, ``--unsafe-fixes``, ``--diff``) and writing a suppression baseline
(``--add-suppressions``).

Each fix is applied on its own, as a minimal text edit; the result is parsed and linted again, and
the fix is kept only if the file still parses and no new error appears. Passes repeat until
nothing more applies, so a second ``--fix`` changes nothing. Files are written atomically, and
only when something changed; a file that cannot be written is reported, and the others go on.
"""

from __future__ import annotations

import difflib
import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tpuemb_cli import atomic
from tpuemb_cli.edits import TextEdit
from tpuemb_cli.findings import Finding, Severity
from tpuemb_cli.inputs import Input
from tpuemb_cli.load import Document, Format, jsonedit, load_bytes, textedit
from tpuemb_cli.paths import render
from tpuemb_cli.words import plural

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.run import CheckOptions, Streams

MAX_PASSES = 20
BASELINE_REASON = "baseline: added by tpuemb --add-suppressions"


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str | None:
    """``text`` with ``edits`` made; None if two edits overlap."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end:
            return None
    for edit in reversed(ordered):
        text = text[: edit.start] + edit.replacement + text[edit.end :]
    return text


def _errors(findings: Sequence[Finding]) -> set[tuple[str, str, str]]:
    return {(f.rule, f.field, f.message) for f in findings if f.severity is Severity.ERROR}


class Fixer:
    def __init__(self, options: CheckOptions, streams: Streams) -> None:
        self.options = options
        self.streams = streams
        self.changed: list[str] = []
        self.diffs: list[str] = []
        self.ok = True
        self.baseline: dict[Path, list[str]] = {}

    def _note(self, message: str) -> None:
        self.streams.err.write(f"tpuemb: {message}\n")

    def _allowed(self, finding: Finding) -> bool:
        fix = finding.autofix
        return fix is not None and (fix.safe or self.options.unsafe_fixes)

    # -- fixes ----------------------------------------------------------------------------------
    def process(
        self, item: Input, data: bytes, document: Document, findings: list[Finding], engine: Engine
    ) -> tuple[Document, list[Finding]]:
        if self.options.add_suppressions:
            return self._baseline(item, document, findings, engine)
        if not any(self._allowed(f) for f in findings):
            return document, findings
        if document.format is Format.BINARY or document.text is None:
            self._note(f"{item.name}: binary files get no fixes (convert to text to fix them)")
            return document, findings
        if item.path is None and not self.options.diff:
            self._note(f"{item.name}: fixes cannot be written to standard input; use --diff")
            return document, findings
        text, document, findings = self._fix_text(document, findings, engine)
        original = data.decode("utf-8-sig")
        if text == original:
            return document, findings
        if self.options.diff:
            # git's a/ and b/ prefixes for relative paths; an absolute path is shown as it is.
            relative = not Path(item.name).is_absolute()
            self.diffs.append(
                "".join(
                    difflib.unified_diff(
                        original.splitlines(keepends=True),
                        text.splitlines(keepends=True),
                        fromfile=f"a/{item.name}" if relative else item.name,
                        tofile=f"b/{item.name}" if relative else item.name,
                    )
                )
            )
            self.changed.append(item.name)
            return document, findings
        self._write(item, data, text)
        return document, findings

    def _fix_text(
        self, document: Document, findings: list[Finding], engine: Engine
    ) -> tuple[str, Document, list[Finding]]:
        assert document.text is not None and document.source_map is not None
        text = document.text
        editor = jsonedit if document.format is Format.JSON else textedit
        skipped: set[tuple[str, str, str]] = set()
        for _ in range(MAX_PASSES):
            progress = False
            for finding in findings:
                key = (finding.rule, finding.field, finding.message)
                if not self._allowed(finding) or key in skipped:
                    continue
                assert finding.autofix is not None and document.source_map is not None
                edits = editor.text_edits(finding.autofix, document.source_map)
                candidate = apply_edits(text, edits) if edits else None
                if candidate is None or candidate == text:
                    skipped.add(key)
                    continue
                fixed = load_bytes(
                    candidate.encode("utf-8"),
                    document.name,
                    document.format,
                    document.message_type,
                )
                if fixed.problems or fixed.message is None:
                    skipped.add(key)  # the fix would break the file
                    continue
                new_findings = engine.lint(fixed)
                if not _errors(new_findings) <= _errors(findings):
                    skipped.add(key)  # the fix would introduce an error
                    continue
                text, document, findings = candidate, fixed, new_findings
                progress = True
                break  # positions moved: start again from the new findings
            if not progress:
                break
        return text, document, findings

    def _write(self, item: Input, data: bytes, text: str) -> None:
        assert item.path is not None
        encoded = text.encode("utf-8")
        if data.startswith(b"\xef\xbb\xbf"):
            encoded = b"\xef\xbb\xbf" + encoded  # keep the byte-order mark the file had
        try:
            # A rename would replace a read-only file (even for root); its owner said no.
            if not item.path.stat().st_mode & 0o222:
                raise PermissionError(13, "the file is read-only")
            atomic.write_atomic(item.path, encoded)
        except OSError as problem:
            self._note(f"{item.name}: not fixed: cannot write: {problem.strerror or problem}")
            self.ok = False
            return
        self.changed.append(item.name)

    # -- baseline -------------------------------------------------------------------------------
    def _baseline(
        self, item: Input, document: Document, findings: list[Finding], engine: Engine
    ) -> tuple[Document, list[Finding]]:
        if not findings:
            return document, findings
        if document.format is Format.TEXT and document.source_map is not None and item.path:
            return self._baseline_comments(item, document, findings, engine)
        settings = engine.settings
        target = settings.path
        if target is None:
            target = Path(".tpuemb.toml")
        relative = settings.relative(item.name) if settings.path else item.name
        entries = self.baseline.setdefault(target, [])
        prefix = "tool.tpuemb." if target.name == "pyproject.toml" else ""
        for finding in findings:
            entries.append(
                f"\n[[{prefix}suppress]]\n"
                f"file = {json.dumps(relative or item.name)}\n"
                f"field = {json.dumps(render(finding.path))}\n"
                f"rules = [{json.dumps(finding.rule)}]\n"
                f"reason = {json.dumps(BASELINE_REASON)}\n"
            )
        return document, []

    def _baseline_comments(
        self, item: Input, document: Document, findings: list[Finding], engine: Engine
    ) -> tuple[Document, list[Finding]]:
        assert document.source_map is not None and document.text is not None
        text = document.text
        by_line: dict[int, list[str]] = {}
        for finding in findings:
            if finding.position is not None:
                codes = by_line.setdefault(finding.position.line, [])
                if finding.rule not in codes:
                    codes.append(finding.rule)
        lines = text.split("\n")
        for number, codes in by_line.items():
            line = lines[number - 1]
            ending = "\r" if line.endswith("\r") else ""
            body = line[: len(line) - len(ending)]
            lines[number - 1] = (
                f"{body}  # tpuemb: ignore[{','.join(sorted(codes))}] {BASELINE_REASON}{ending}"
            )
        new_text = "\n".join(lines)
        fixed = load_bytes(
            new_text.encode("utf-8"), document.name, Format.TEXT, document.message_type
        )
        self._write(item, text.encode("utf-8"), new_text)
        return fixed, engine.lint(fixed)

    def finish(self) -> bool:
        """Prints diffs and writes the baseline entries; False if anything could not be done."""
        for diff in self.diffs:
            self.streams.out.write(diff)
        for target, entries in self.baseline.items():
            try:
                existing = target.read_text(encoding="utf-8") if target.exists() else ""
                separator = "" if not existing or existing.endswith("\n") else "\n"
                atomic.write_atomic(
                    target, (existing + separator + "".join(entries)).encode("utf-8")
                )
            except OSError as problem:
                self._note(f"{target}: cannot write suppressions: {problem.strerror or problem}")
                self.ok = False
                continue
            self._note(f"{target}: added {plural(len(entries), 'suppression')}")
        if self.changed and not self.options.diff:
            verb = "added suppressions to" if self.options.add_suppressions else "fixed"
            self._note(f"{verb} {plural(len(self.changed), 'file')}")
        return self.ok
