"""``tpuemb diff``: will a checkpoint written under the old config restore under the new one?

``tpuemb diff OLD NEW`` compares two configs or specs (any encoding; a spec is compiled first);
``tpuemb diff --against REF [PATH...]`` compares each config or spec under the paths with its
version at a git revision. Exit 1 when a change is of a kind ``--fail-on`` names, 2 when an
input or the revision cannot be read.
"""

from __future__ import annotations

from typing import NamedTuple

import click

from tpuemb_cli.cli import inputs
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    Streams,
    color,
    error,
    max_size_option,
    read_input,
    run,
)
from tpuemb_cli.compat.kinds import DEFAULT_FAIL_ON, KINDS, Placed
from tpuemb_cli.load import Document


class DiffOptions(NamedTuple):
    files: tuple[str, ...]
    against: str | None = None
    format: str | None = None  # None: as `check` picks it (terminal, CI, TPUEMB_FORMAT)
    fail_on: frozenset[str] = frozenset(DEFAULT_FAIL_ON)
    max_bytes: int = inputs.DEFAULT_MAX_BYTES
    documents_only: bool = False  # named files that are no TPU embedding document: skipped
    output_file: str | None = None  # None: stdout


class Unreadable(Exception):
    """An input that cannot be compared; the message names the file (and place)."""


def load(data: bytes, name: str, walked: bool = False) -> Document | None:
    """The document ``data`` holds; None for a file found by walking that is not a TPU embedding
    document. Raises Unreadable when it does not parse."""
    from tpuemb_cli.load import Skipped, load_input

    document = load_input(data, name, walked=walked)
    if isinstance(document, Skipped):
        return None
    fatal = [p for p in document.problems if p.fatal]
    if document.message is None or fatal:
        problem = fatal[0] if fatal else document.problems[0]
        where = name
        if problem.span is not None and document.source_map is not None:
            position = document.source_map.position_of_span(problem.span)
            where += f":{position.line}:{position.column}"
        raise Unreadable(f"{where}: cannot compare: {problem.message}")
    return document


def _compare(old: Document, new: Document) -> list[Placed]:
    from tpuemb_cli.compat.compare import compare
    from tpuemb_cli.compat.sides import NotComparable

    try:
        return compare(old, new)
    except NotComparable as problem:
        raise Unreadable(str(problem)) from None


def _sources(*documents: Document | None) -> dict[str, str]:
    return {
        d.name: d.source_map.text for d in documents if d is not None and d.source_map is not None
    }


def _two_files(
    options: DiffOptions, streams: Streams
) -> tuple[list[Placed], dict[str, str], int] | None:
    documents = []
    for path in options.files:
        read = read_input(path, options.max_bytes, streams)
        if read is None:
            return None
        item, data = read
        document = load(data, item.name)
        assert document is not None  # named, not walked
        documents.append(document)
    old, new = documents
    return _compare(old, new), _sources(old, new), 1


def _revision(
    options: DiffOptions, streams: Streams
) -> tuple[list[Placed], dict[str, str], int, bool]:
    from tpuemb_cli.cli.against import versions
    from tpuemb_cli.compat.compare import added, removed

    assert options.against is not None
    found, problems = versions(options.against, options.files or (".",), options.max_bytes)
    changes: list[Placed] = []
    sources: dict[str, str] = {}
    compared = 0
    for version in found:
        walked = version.walked or options.documents_only
        try:
            old = new = None
            if version.old is not None:
                old = load(version.old, f"{options.against}:{version.name}", walked)
            if version.new is not None:
                new = load(version.new, version.name, walked)
            if old is not None and new is not None:
                changes += _compare(old, new)
            elif new is not None:
                changes += added(new, options.against)
            elif old is not None:
                changes += removed(old, options.against)
            else:
                continue  # not a TPU embedding document, then or now
        except Unreadable as unreadable:
            problems.append(str(unreadable))
            continue
        compared += 1
        sources.update(_sources(old, new))
    for problem in problems:
        error(streams, problem)
    return changes, sources, compared, bool(problems)


def execute(options: DiffOptions, streams: Streams) -> int:
    from tpuemb_cli.cli.against import GitError
    from tpuemb_cli.cli.outputs import default_format, write_report_file
    from tpuemb_cli.formatters.diff import DiffReport, get

    failed = False
    try:
        if options.against is None:
            done = _two_files(options, streams)
            if done is None:
                return EXIT_ERROR
            changes, sources, compared = done
        else:
            changes, sources, compared, failed = _revision(options, streams)
    except (Unreadable, GitError) as problem:
        error(streams, str(problem))
        return EXIT_ERROR
    report = DiffReport(changes, compared, sources)
    name = options.format or default_format()
    if options.output_file is None:
        streams.out.write(get(name)(report, color(streams.out)))
    elif not write_report_file(options.output_file, get(name)(report, False), streams):
        return EXIT_ERROR
    if failed:
        return EXIT_ERROR
    return EXIT_FINDINGS if any(c.kind in options.fail_on for c in changes) else EXIT_OK


def _fail_on(ctx: click.Context, param: click.Parameter, value: str) -> frozenset[str]:
    kinds = {k.strip() for k in value.split(",") if k.strip()}
    if kinds == {"none"}:
        return frozenset()
    unknown = sorted(kinds - set(KINDS))
    if unknown:
        raise click.BadParameter(
            f"unknown kind {', '.join(map(repr, unknown))} (kinds: {', '.join(KINDS)}; or none)"
        )
    return frozenset(kinds)


def _format_names() -> list[str]:
    from tpuemb_cli.formatters import ALIASES
    from tpuemb_cli.formatters.diff import FORMATS

    return [*FORMATS, *ALIASES]


@click.command("diff")
@click.argument("files", nargs=-1, metavar="OLD NEW | --against REF [PATH...]")
@click.option(
    "--against",
    metavar="REF",
    help="Compare each config or spec under PATH (default: .) with its version at this git "
    "revision.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(_format_names()),
    help="Output format (default: full on a terminal, github in GitHub Actions, else concise; "
    "or TPUEMB_FORMAT).",
)
@click.option(
    "--fail-on",
    metavar="KINDS",
    default=",".join(DEFAULT_FAIL_ON),
    show_default=True,
    callback=_fail_on,
    help=f"Exit 1 when a change is of one of these kinds (comma-separated: {', '.join(KINDS)}; "
    "or none).",
)
@click.option(
    "--documents-only",
    is_flag=True,
    help="With --against: skip named files that are not TPU embedding documents, as files found "
    "in directories are (what the pre-commit hook passes).",
)
@click.option(
    "--output-file",
    metavar="PATH",
    help="Write the report to PATH (atomically) instead of stdout, e.g. SARIF for code scanning.",
)
@max_size_option
def command(
    files: tuple[str, ...],
    against: str | None,
    output_format: str | None,
    fail_on: frozenset[str],
    documents_only: bool,
    output_file: str | None,
    max_bytes: int,
) -> None:
    """Say what a config change does to a checkpoint written under the old config.

    Compares OLD and NEW (configs or specs, any encoding; specs are compiled first), or with
    --against each config under the paths with its version at a git revision. Each change is a
    restore-error, silent-reinit, orphaned-state, training-change, topology-change or
    cosmetic (docs/diff.md). Exit 0: nothing --fail-on names; 1: something it names; 2: an
    input or the revision could not be read.
    """
    if against is None and len(files) != 2:
        raise click.UsageError("give two files (OLD NEW), or --against REF [PATH...]")
    options = DiffOptions(
        files, against, output_format, fail_on, max_bytes, documents_only, output_file
    )
    run(execute, options, Streams.standard())
