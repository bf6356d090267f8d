"""One pair of documents through the pipeline of ``tpuemb diff``: settings -> exclusion -> load
-> comparison -> engine, a crash in tpuemb contained as a finding, as ``lint_document`` does for
one document. The comparison (``compat``) stands where the rules stand in a lint; the engine
turns the changes into findings of their kinds' rules and applies the settings of the file the
diff is about: its selection, per-file ignores and suppressions (which acknowledge a change).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpuemb_cli import load as loader
from tpuemb_cli.load import Document, Skipped
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.model.records import Record
from tpuemb_cli.workspace.linting import Linted, Workspace, facts_of

if TYPE_CHECKING:
    from tpuemb_cli.compat.kinds import Placed


class Version(Record):
    """One side of a comparison: the bytes of a file and its name (``REF:path`` for a version
    at a git revision). ``walked``: found in a folder, so that a file that is no TPU embedding
    document is skipped rather than reported."""

    data: bytes
    name: str
    walked: bool = False


class Diffed(Record):
    """What comparing one pair gave: the findings (changes, acknowledgements that matched
    nothing, tpuemb's own failure) and the text of each side, for formats that quote it.
    ``compared``: a pair, or a file on one side, was compared. Else ``skipped`` says why (no TPU
    embedding document on either side, excluded by the configuration) or ``error`` (a side that
    cannot be read or compared, a configuration that cannot be used: exit 2)."""

    name: str
    findings: list[Finding]
    sources: dict[str, str]
    compared: bool = False
    skipped: str | None = None
    error: str | None = None


class CannotCompare(Exception):
    """A side that did not load, or holds no checkpoint layout; the message says where."""


def diff_versions(
    workspace: Workspace,
    old: Version | None,
    new: Version | None,
    name: str,
    since: str | None = None,
    exclude: bool = False,
) -> Diffed:
    """Compares ``old`` with ``new`` (either may be absent: a file new or removed ``since`` a
    revision). ``name`` is the file the diff is about, on disk: its configuration governs the
    findings, and its suppressions acknowledge changes. ``exclude``: skip it when its
    configuration excludes it (files found in folders)."""
    found = workspace.resolve(name, on_disk=True, exclude=exclude)
    if isinstance(found, Linted):
        return Diffed(name, [], {}, skipped=found.skipped, error=found.error)
    engine = workspace.engine_for(found)
    during = "while loading the file"
    try:
        old_document = _loaded(old)
        new_document = _loaded(new)
        if old_document is None and new_document is None:
            return Diffed(name, [], {}, skipped="not a TPU embedding document, then or now")
        during = "while comparing the files"
        placed = _changes(old_document, new_document, since or "")
        # The new file is where an acknowledgement can be written; for a removed file, its
        # configuration's entries only.
        anchor = new_document or Document(name, "", "", None, None)
        findings = engine.judge_changes(anchor, placed)
    except CannotCompare as problem:
        return Diffed(name, [], {}, error=str(problem))
    except Exception as error:  # a bug in tpuemb: a finding on this file, not a stop
        workspace.report_crash(during, error)
        return Diffed(name, [engine.crashed(name, during, error)], {}, compared=True)
    sources = {
        document.name: document.source_map.text
        for document in (old_document, new_document)
        if document is not None and document.source_map is not None
    }
    return Diffed(name, findings, sources, compared=True)


def _loaded(version: Version | None) -> Document | None:
    """The document ``version`` holds; None when there is none, or when a file found by walking
    is no TPU embedding document. Raises CannotCompare when it does not parse."""
    if version is None:
        return None
    document = loader.load_input(version.data, version.name, walked=version.walked)
    if isinstance(document, Skipped):
        return None
    fatal = [p for p in document.problems if p.fatal]
    if document.message is None or fatal:
        problem = fatal[0] if fatal else document.problems[0]
        where = version.name
        if problem.span is not None and document.source_map is not None:
            position = document.source_map.position_of_span(problem.span)
            where += f":{position.line}:{position.column}"
        raise CannotCompare(f"{where}: cannot compare: {problem.message}")
    return document


def _changes(old: Document | None, new: Document | None, since: str) -> list[Placed]:
    from tpuemb_cli.compat.compare import added, compare, removed
    from tpuemb_cli.compat.sides import NotComparable

    try:
        if old is not None and new is not None:
            return compare(old, new, facts_of(old), facts_of(new))
        if new is not None:
            return added(new, since, facts_of(new))
        assert old is not None
        return removed(old, since, facts_of(old))
    except NotComparable as problem:
        raise CannotCompare(str(problem)) from None
