"""One pair of documents through the pipeline of ``tpuemb diff``: settings -> exclusion -> load
-> comparison -> engine, a crash in tpuemb contained as a finding, as ``lint_document`` does for
one document. The comparison (``compat``) stands where the rules stand in a lint; the engine
turns the changes into findings of their kinds' rules and applies the settings of the file the
diff is about: its selection, per-file ignores and suppressions (which acknowledge a change).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from tpuemb_cli import load as loader
from tpuemb_cli.engine import Engine
from tpuemb_cli.frontends import changes_of, compat_of
from tpuemb_cli.load import Document, Skipped
from tpuemb_cli.model.findings import Finding, Severity
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.schema import kind_of
from tpuemb_cli.rules import BY_CODE
from tpuemb_cli.workspace.linting import Linted, Workspace, facts_of
from tpuemb_cli.workspace.pairing import CannotCompare, family_of_pair, layout_of

if TYPE_CHECKING:
    from tpuemb_cli.compat.kinds import Placed
    from tpuemb_cli.load.checkpoint import Checkpoint
    from tpuemb_cli.load.orbax import OrbaxCheckpoint
    from tpuemb_cli.spec.facts import SpecFacts


class Version(Record):
    """One side of a comparison: the bytes of a file and its name (``REF:path`` for a version
    at a git revision). ``walked``: found in a folder, so that a file that is no TPU embedding
    document is skipped rather than reported."""

    data: bytes
    name: str
    walked: bool = False
    message_type: str | None = None  # what the user said it holds (else its content decides)


class Diffed(Record):
    """What comparing one pair gave: the findings (changes, acknowledgements that matched
    nothing, tpuemb's own failure) and the text of each side, for formats that quote it.
    ``compared``: a pair, or a file on one side, was compared. Else ``skipped`` says why (no TPU
    embedding document on either side, excluded by the configuration) or ``error`` (a side that
    cannot be compared, with its errors in ``findings``; a configuration that cannot be used,
    ``stop``: exit 2)."""

    name: str
    findings: list[Finding]
    sources: dict[str, str]
    compared: bool = False
    skipped: str | None = None
    error: str | None = None
    stop: bool = False  # the error is the configuration's: said once, the run ends (exit 2)


def diff_versions(
    workspace: Workspace,
    old: Version | None,
    new: Version | None,
    name: str,
    since: str | None = None,
    exclude: bool = False,
) -> Diffed:
    """Compares ``old`` with ``new``. ``name`` is the file the diff is about, on disk: its
    configuration governs the findings, and its suppressions acknowledge changes. ``since``: the
    revision ``old`` is from (``--against``), where either side may be absent (a file new or
    removed since), and a side that is no config or spec (a graph, optimizer parameters) counts
    as absent; without it, both must be there. ``exclude``: skip ``name`` when its configuration
    excludes it (files found in folders).

    A side that does not load, or a spec that ``compile`` refuses (it has errors), cannot be
    compared: ``error`` says so, and ``findings`` holds its errors."""

    def versions(documents: Sides, facts: Facts, engine: Engine) -> tuple[Document, list[Placed]]:
        old_document, new_document = (_with_layout(d, facts, since is not None) for d in documents)
        present = [d for d in (old_document, new_document) if d is not None]
        if not present:  # neither side has a checkpoint layout: nothing a checkpoint holds
            return Document(name, "", "", None, None), []
        family: str | None
        if len(present) == 2:
            family = family_of_pair([(d.name, layout_of(d, facts[id(d)])) for d in present])
        else:
            family = layout_of(present[0], facts[id(present[0])]).family
        # A family its front-end compares (`changes_<family>`: Keras-RS weights, SparseCore
        # stacks); the others by the common comparison below.
        changes = changes_of(family) if family is not None else None
        if changes is not None:
            anchor: Document
            anchor, placed = changes(name, old_document, new_document, engine)
            return anchor, placed
        placed = _changes(old_document, new_document, since or "", facts)
        # The new file is where an acknowledgement can be written; for a removed file, its
        # configuration's entries only.
        return new_document or Document(name, "", "", None, None), placed

    # Against a revision, a file the same as then is no change whatever check says of it: the
    # pairs were not chosen by the user, and a gate on changes must not block an untouched file.
    # A pair named by the user is judged as ever (a spec the library refuses, even against
    # itself, is refused).
    return _diff(workspace, name, [old, new], exclude, versions, same_is_none=since is not None)


def diff_checkpoint(
    workspace: Workspace,
    version: Version,
    checkpoint: Checkpoint | OrbaxCheckpoint,
    prefix: str | None = None,
) -> Diffed:
    """Compares the config or spec ``version`` holds with the variables ``checkpoint`` holds
    under ``prefix`` (found when None): will it restore from that checkpoint? The same pipeline
    as ``diff_versions``: the file's settings, its refusals, the changes as findings of their
    kinds' rules (placed in the file, acknowledged by its suppressions)."""

    def against(documents: Sides, facts: Facts, engine: Engine) -> tuple[Document, list[Placed]]:
        (document,) = documents
        assert document is not None and document.message is not None  # it has a layout
        layout = layout_of(document, facts[id(document)])
        # A front-end that reads this format of checkpoint says what it holds for its kind
        # (``against_<format>_<kind>``: an Orbax checkpoint's stacks); TensorFlow's checkpoints
        # are the common comparison's.
        compare = compat_of(kind_of(document.message), f"against_{checkpoint.format}")
        if compare is not None:
            placed: list[Placed] = compare(document, facts[id(document)], checkpoint, engine)
            return document, placed
        if checkpoint.format != "tensorflow":
            raise CannotCompare(
                f"{document.name}: cannot compare: it is {layout.what}, and "
                f"{checkpoint.path} is {checkpoint.what}, which holds none of its variables"
            )
        if layout.against_checkpoint:  # its front-end says why TensorFlow's do not compare
            raise CannotCompare(layout.against_checkpoint)
        tensorflow = cast("Checkpoint", checkpoint)
        # A family its front-end compares with a checkpoint (SparseCore stacks); the others as
        # TPUEmbedding's tables (compat/checkpoint).
        own = changes_of(layout.family, "checkpoint") if layout.family is not None else None
        if own is not None:
            found: list[Placed] = own(document, tensorflow, prefix, facts[id(document)])
            return document, found
        return document, _against_checkpoint(document, tensorflow, prefix, facts[id(document)])

    return _diff(workspace, version.name, [version], False, against)


Sides = list[Document | None]
Facts = dict[int, "SpecFacts | None"]
# What a diff compares its loaded documents with: the file its changes are placed in (where
# acknowledgements are read), and the changes.
Comparison = Callable[[Sides, Facts, Engine], tuple[Document, list["Placed"]]]


def _diff(
    workspace: Workspace,
    name: str,
    versions: list[Version | None],
    exclude: bool,
    compare: Comparison,
    same_is_none: bool = False,
) -> Diffed:
    """The pipeline both diffs share: settings -> exclusion -> load -> refusals -> ``compare``
    -> engine, a crash contained as a finding on ``name``."""
    found = workspace.resolve(name, on_disk=True, exclude=exclude)
    if isinstance(found, Linted):
        stop = found.error is not None  # the configuration cannot be used: no report at all
        return Diffed(name, [], {}, skipped=found.skipped, error=found.error, stop=stop)
    engine = workspace.engine_for(found)
    during = "while loading the file"
    try:
        documents = _loaded_sides(versions)
        sources = {
            document.name: document.source_map.text
            for document in documents
            if document is not None and document.source_map is not None
        }
        facts = {id(d): facts_of(d) for d in documents if d is not None}
        during = "while linting the files"
        check = workspace.engine_for(found, "check")
        # One side's errors once, even when both sides are the same file.
        refused = list(
            dict.fromkeys(
                finding
                for document in documents
                if document is not None
                for finding in _refusals(check, document, facts)
            )
        )
        if refused and same_is_none and _unchanged(versions, documents):
            # The same on both sides: no change; its errors are check's to report.
            return Diffed(name, [], sources, compared=True)
        if refused:
            names = sorted({f.file for f in refused})
            return Diffed(
                name,
                refused,
                sources,
                error=f"{' and '.join(names)}: cannot compare: "
                f"{'it has' if len(names) == 1 else 'they have'} errors (reported below)",
            )
        if not any(_has_layout(d) for d in documents):
            if len(documents) == 1:  # a file named against a checkpoint: not one to skip
                raise CannotCompare(f"{name}: cannot compare: {_why_skipped(documents)}")
            return Diffed(name, [], sources, skipped=_why_skipped(documents))
        during = "while comparing"
        anchor, placed = compare(documents, facts, engine)
        findings = engine.judge_changes(anchor, placed)
    except CannotCompare as problem:
        return Diffed(name, [], {}, error=str(problem))
    except Exception as error:  # a bug in tpuemb: a finding on this file, not a stop
        workspace.report_crash(during, error)
        return Diffed(name, [engine.crashed(name, during, error)], {}, compared=True)
    return Diffed(name, findings, sources, compared=True)


def _unchanged(versions: list[Version | None], documents: Sides) -> bool:
    """Whether both sides are there, loaded (a file that does not parse is not judged, even
    against itself) and the same: the same bytes, or the same text read from them (a `.keras`
    archive on disk is read for its config.json alone, from the revision whole)."""
    if len(versions) != 2 or None in versions or None in documents:
        return False
    old, new = versions
    before, after = documents
    assert old is not None and new is not None and before is not None and after is not None
    if before.message is None or after.message is None:
        return False
    if old.data == new.data:
        return True
    return before.text is not None and before.text == after.text


def _against_checkpoint(
    document: Document, checkpoint: Checkpoint, prefix: str | None, facts: SpecFacts | None
) -> list[Placed]:
    from tpuemb_cli.compat.checkpoint import EmbeddingNotFound, compare_checkpoint
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.compat.sides import side_of

    try:
        changes = compare_checkpoint(document, checkpoint, prefix, facts)
    except EmbeddingNotFound as problem:
        raise CannotCompare(str(problem)) from None
    side = side_of(document, facts)
    return place(changes, side, side)


# Below this many bytes on a side, loading the two sides of a pair at once (a fork, the new
# side's document pickled back) saves less than it costs.
PARALLEL_BYTES = 256 * 1024


def _loaded_sides(versions: list[Version | None]) -> Sides:
    """The document of each version. Of a pair (old, new), a new side found by walking is
    judged by its content (as a named file is) where the old side has a checkpoint layout: a
    config that now holds garbage cannot be compared; it is not a removed one.

    Loading is most of a diff of large files, and each side's is its own: a large pair's two
    sides are loaded at once, the new one in a forked copy of this process (``parallel``)."""
    if _in_parallel(versions):
        from tpuemb_cli.workspace.parallel import map_in_workers  # not on a small pair's path

        documents = map_in_workers(_loaded, versions, 2)
    else:
        documents = [_loaded(version) for version in versions]
    if len(versions) == 2:
        new = versions[1]
        if new is not None and new.walked and documents[1] is None and _has_layout(documents[0]):
            documents[1] = _loaded(new._replace(walked=False))
    return documents


def _in_parallel(versions: list[Version | None]) -> bool:
    if len(versions) != 2 or any(v is None or len(v.data) < PARALLEL_BYTES for v in versions):
        return False
    from tpuemb_cli.workspace.parallel import can_fork

    return can_fork()


def _loaded(version: Version | None) -> Document | None:
    """The document ``version`` holds; None when there is none, or when a file found by walking
    is no TPU embedding document."""
    if version is None:
        return None
    document = loader.load_input(
        version.data, version.name, version.message_type, walked=version.walked
    )
    return None if isinstance(document, Skipped) else document


def _refusals(
    check: Engine, document: Document, facts: dict[int, SpecFacts | None]
) -> list[Finding]:
    """The errors that keep ``document`` from being compared: those of its loading (a value that
    did not load would be compared as its default), or every error where its front-end says any
    refuses it (a spec, as ``compile`` refuses one with errors: ``Layout.any_error_refuses``).
    ``check``: the engine of the lint rules, with the file's settings."""
    message = document.message
    whole = message is not None and layout_of(document, facts.get(id(document))).any_error_refuses
    if not whole and message is not None and not document.problems:
        return []  # a config (or another document) that loaded cleanly: nothing to lint for
    found = check.lint(document, None, facts.get(id(document)))
    return [
        f
        for f in found
        if f.severity is Severity.ERROR
        and (whole or f.rule == "TE010" or BY_CODE[f.rule].family == "parse")
    ]


# The kinds of document that have a checkpoint layout (``pairing`` says which, and whether a
# pair's are of one family).


def _has_layout(document: Document | None) -> bool:
    return (
        document is not None
        and document.message is not None
        and compat_of(kind_of(document.message), "layout") is not None
    )


def _with_layout(
    document: Document | None, facts: Facts, one_side_may_lack: bool
) -> Document | None:
    """``document``; None when there is none, or when it has no checkpoint layout where a file
    may be on one side only (``--against``): there it counts as absent. Elsewhere the pair's
    kinds decide (``pairing``): a side with no layout cannot be compared with one that has."""
    if document is None or document.message is None:
        return None
    if one_side_may_lack and layout_of(document, facts[id(document)]).family is None:
        return None
    return document


def _why_skipped(documents: list[Document | None]) -> str:
    held = sorted(
        {d.message.DESCRIPTOR.name for d in documents if d is not None and d.message is not None}
    )
    if not held:
        return "not a TPU embedding document"
    return f"holds {' and '.join(held)}, which has no checkpoint layout to compare"


def _changes(
    old: Document | None, new: Document | None, since: str, facts: dict[int, SpecFacts | None]
) -> list[Placed]:
    from tpuemb_cli.compat.compare import added, compare, removed
    from tpuemb_cli.compat.sides import NotComparable

    try:
        if old is not None and new is not None:
            return compare(old, new, facts.get(id(old)), facts.get(id(new)))
        if new is not None:
            return added(new, since, facts.get(id(new)))
        assert old is not None
        return removed(old, since, facts.get(id(old)))
    except NotComparable as problem:
        raise CannotCompare(str(problem)) from None
