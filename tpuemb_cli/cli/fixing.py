"""What ``check`` does to files besides reporting: fixes (``--fix``, ``--unsafe-fixes``,
``--diff``) and a suppression baseline (``--add-suppressions``). The fix policy and the baseline's
text come from ``fix`` and ``engine.baseline``; this module decides what is written where, writes
it, and tells the user."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tpuemb_cli.cli.common import Streams, note, why
from tpuemb_cli.engine import baseline
from tpuemb_cli.engine.settings import absolute
from tpuemb_cli.fix.apply import FixPolicy, fix_document, relint, reload
from tpuemb_cli.fix.atomic import write_atomic
from tpuemb_cli.fix.write import Changed, unchanged_since, unified_diff, write_text
from tpuemb_cli.load import Document
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.model.paths import render
from tpuemb_cli.model.words import plural

if TYPE_CHECKING:
    from tpuemb_cli.cli.inputs import Input, Stamp
    from tpuemb_cli.engine import Engine


class FileChanges:
    """Fixes or a baseline for the files of one ``check`` run, applied as each file is linted;
    ``finish`` prints the diffs and writes the configuration entries."""

    def __init__(
        self,
        streams: Streams,
        policy: FixPolicy,
        diff: bool,
        add_suppressions: bool,
        isolated: bool = False,
        quiet: bool = False,
    ) -> None:
        self.streams = streams
        self.quiet = quiet  # no note of what was fixed
        self.isolated = isolated  # no configuration to write suppression entries to
        self.policy = policy
        self.diff = diff
        self.add_suppressions = add_suppressions
        self.changed: list[str] = []
        self.diffs: list[str] = []
        self.ok = True
        # Files not fixed because they changed while tpuemb ran (exit 1: run again).
        self.stale: list[str] = []
        self.fixes = 0  # fixes made (with --diff: that the diff would make)
        # The rule (code, name) of each fix made, by file, for --show-fixes.
        self.fixed: dict[str, list[tuple[str, str]]] = {}
        self.entries: dict[Path, tuple[tuple[str, ...], list[baseline.Entry]]] = {}
        # Suppressions of files no configuration governs: (file, field, rule), placed by finish.
        self.unrooted: list[tuple[Path, str, str]] = []

    def process(
        self,
        item: Input,
        data: bytes,
        stamp: Stamp | None,
        document: Document,
        findings: list[Finding],
        engine: Engine,
    ) -> tuple[Document, list[Finding]]:
        """The document and findings after this run's change to the file (or as they were)."""
        if self.add_suppressions:
            return self._baseline(item, data, stamp, document, findings, engine)
        if not any(self.policy.allows(f) for f in findings):
            return document, findings
        fixed = fix_document(document, findings, engine, self.policy)
        if fixed.refused is not None:
            note(self.streams, f"{item.name}: {fixed.refused}")
            # Not offered as fixable either: the count would promise what --fix just refused.
            return document, [f._replace(autofix=None) for f in findings]
        if fixed.stopped is not None:
            note(self.streams, f"{item.name}: {fixed.stopped}")
        if fixed.withheld:
            rules = ", ".join(dict.fromkeys(fixed.withheld))
            note(
                self.streams,
                f"{item.name}: {plural(len(fixed.withheld), 'fix', 'fixes')} not made ({rules}): "
                "each would break the file or add an error it does not have now",
            )
        if not item.writable and not self.diff:
            note(self.streams, f"{item.name}: {_unwritable(item)}; use --diff to see the fixes")
            return document, findings
        assert fixed.text is not None
        if fixed.text == document.text:
            return fixed.document, fixed.findings
        if self.diff:
            self.diffs.append(unified_diff(item.name, data, fixed.text))
            self.changed.append(item.name)
            self.fixes += fixed.applied
            return fixed.document, fixed.findings
        if self._write(item, data, stamp, fixed.text):
            self.fixes += fixed.applied
            self.fixed.setdefault(item.name, []).extend(fixed.fixed_rules)
            return fixed.document, fixed.findings
        return document, findings

    def _write(self, item: Input, data: bytes, stamp: Stamp | None, text: str) -> bool:
        assert item.path is not None
        try:
            write_text(Path(item.path), data, text, stamp)
        except Changed:
            what = "suppressions not added" if self.add_suppressions else "not fixed"
            note(
                self.streams,
                f"{item.name}: {what}: the file changed after tpuemb read it; run tpuemb again",
            )
            self.stale.append(item.name)
            return False
        except OSError as problem:
            note(self.streams, f"{item.name}: not fixed: cannot write: {why(problem)}")
            self.ok = False
            return False
        self.changed.append(item.name)
        return True

    def _baseline(
        self,
        item: Input,
        data: bytes,
        stamp: Stamp | None,
        document: Document,
        findings: list[Finding],
        engine: Engine,
    ) -> tuple[Document, list[Finding]]:
        kept = [f for f in findings if baseline.not_baselined(f.rule) is not None]
        wanted = [f for f in findings if baseline.not_baselined(f.rule) is None]
        for reason in dict.fromkeys(baseline.not_baselined(f.rule) for f in kept):
            codes = sorted({f.rule for f in kept if baseline.not_baselined(f.rule) == reason})
            note(self.streams, f"{item.name}: not suppressed: {', '.join(codes)}: {reason}")
        if not wanted:
            return document, findings
        if not item.writable:
            note(self.streams, f"{item.name}: {_unwritable(item, 'suppressions')}")
            self.ok = False
            return document, findings
        assert item.path is not None
        if document.format == "text" and document.text is not None:
            new_text = baseline.with_comments(document, wanted)
            if not self._write(item, data, stamp, new_text):
                return document, findings
            fixed = reload(document, new_text)
            return fixed, relint(fixed, engine)
        # JSON, YAML and binary: entries in the configuration that governs the file (the one
        # `check` found for it), or, with none, in one new .tpuemb.toml at the project's root,
        # which the next run finds for every file below it.
        settings = engine.settings
        if settings.path is not None:
            target = absolute(settings.path)
            relative = settings.relative(item.name) or item.name
            table = settings.table_path
        elif self.isolated:
            note(
                self.streams,
                f"{item.name}: not suppressed: --isolated reads no configuration, where the "
                "suppressions of JSON, YAML and binary files live",
            )
            self.ok = False
            return document, findings
        else:
            # Where it goes is decided in ``finish``, once every file is known.
            file = absolute(item.path)
            self.unrooted.extend((file, render(f.path), f.rule) for f in wanted)
            return document, kept
        entries = self.entries.setdefault(target, (table, []))[1]
        entries.extend(baseline.Entry(relative, render(f.path), f.rule) for f in wanted)
        return document, kept

    def _root_unrooted(self) -> None:
        """Places the entries of files no configuration governs: one new configuration per
        project root (``project_root``), its files' paths relative to it."""
        roots = project_roots([file for file, _, _ in self.unrooted])
        for file, field, rule in self.unrooted:
            root = roots[file]
            entries = self.entries.setdefault(root / ".tpuemb.toml", ((), []))[1]
            entries.append(baseline.Entry(file.relative_to(root).as_posix(), field, rule))

    def finish(self) -> bool:
        """Prints diffs and writes the baseline entries; False if anything could not be done."""
        for diff in self.diffs:
            self.streams.out.write(diff)
        self._root_unrooted()
        for target, (table, entries) in self.entries.items():
            try:
                # Bytes, decoded: read_text would turn CRLF into LF throughout the file.
                original = target.read_bytes() if target.exists() else None
                existing = original.decode("utf-8") if original is not None else ""
                entries = list(dict.fromkeys(entries))  # a file named twice: its entries once
                text = baseline.with_entries(existing, table, entries)
                # Written only over what was read: an edit saved meanwhile is kept.
                write_atomic(target, text.encode("utf-8"), unchanged_since(original))
            except Changed:
                note(
                    self.streams,
                    f"{target}: suppressions not added: the file changed after tpuemb read it; "
                    "run tpuemb again",
                )
                self.stale.append(str(target))
                continue
            except OSError as problem:
                note(self.streams, f"{target}: cannot write suppressions: {why(problem)}")
                self.ok = False
                continue
            except (baseline.BaselineRefused, UnicodeDecodeError) as problem:
                note(self.streams, f"{target}: not changed: {problem}")
                self.ok = False
                continue
            note(self.streams, f"{target}: added {plural(len(entries), 'suppression')}")
        if self.changed and not self.diff and not self.quiet:
            verb = "added suppressions to" if self.add_suppressions else "fixed"
            note(self.streams, f"{verb} {plural(len(self.changed), 'file')}")
        return self.ok


def _unwritable(item: Input, what: str = "fixes") -> str:
    if item.path is None:
        return f"{what} cannot be written to standard input"
    return f"{what} cannot be written to it: it is read as a stream (a pipe, a device, /dev/stdin)"


def project_roots(files: list[Path]) -> dict[Path, Path]:
    """Where a new configuration goes for each of ``files`` (absolute), which no configuration
    governs: the top of the git work tree that holds it; else the working directory when it
    holds the file; else the deepest folder that holds every such file of the run -- never
    inside a SavedModel (whose folder TensorFlow owns), but beside it. One configuration per
    project, however many folders its files are in."""
    cwd = absolute(".")
    roots: dict[Path, Path] = {}
    loose: list[Path] = []
    for file in files:
        top = next((folder for folder in file.parents if (folder / ".git").exists()), None)
        if top is None and cwd in file.parents:
            top = cwd
        if top is None:
            loose.append(file)
        else:
            roots[file] = _outside_saved_models(top)
    if loose:
        common = _outside_saved_models(Path(os.path.commonpath([f.parent for f in loose])))
        roots.update(dict.fromkeys(loose, common))
    return roots


def _outside_saved_models(folder: Path) -> Path:
    """``folder``, or the folder that holds the SavedModel it is in (or in a part of)."""
    while folder.parent != folder and _in_saved_model(folder):
        folder = folder.parent
    return folder


def _in_saved_model(folder: Path) -> bool:
    """Whether ``folder`` is a SavedModel's, or its variables/ or assets/."""
    for candidate in (folder, folder.parent):
        if (candidate / "saved_model.pb").exists() or (candidate / "saved_model.pbtxt").exists():
            return candidate == folder or folder.name in ("variables", "assets", "assets.extra")
    return False


def show_fixes(changes: FileChanges, streams: Streams) -> None:
    """``--show-fixes``: the fixes made, by file and rule, as ruff lists them (on stderr: the
    report on stdout may be JSON or SARIF)."""
    from collections import Counter

    from tpuemb_cli.model.words import plural, printable

    if not changes.fixed:
        streams.err.write("No fixes made.\n")
        return
    lines = [f"Fixed {plural(changes.fixes, 'finding')}:"]
    for name in sorted(changes.fixed):
        lines.append(f"- {printable(name)}:")
        counted = Counter(changes.fixed[name])
        for (code, rule), times in sorted(counted.items()):
            lines.append(f"    {times} \u00d7 {code} ({rule})")
    streams.err.write("".join(line + "\n" for line in lines))
