"""What the CLI commands do, given their parsed options. Returns exit codes; never exits.

Exit codes: 0 no finding at or above the fail level, 1 at least one (or, with ``--diff``,
something to fix), 2 usage error, bad configuration, unreadable input or internal error.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

from tpuemb_cli import formatters, inputs
from tpuemb_cli.findings import Finding, Severity
from tpuemb_cli.load.formats import Format

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.settings import Settings

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class Output(NamedTuple):
    format: str
    path: str | None  # None: stdout


class CheckOptions(NamedTuple):
    paths: Sequence[str]
    outputs: Sequence[Output] = (Output("concise", None),)
    message_type: str | None = None
    stdin_filename: str | None = None
    max_bytes: int = inputs.DEFAULT_MAX_BYTES
    color: bool = False
    config: str | None = None
    isolated: bool = False
    select: Sequence[str] | None = None
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    fail_level: str | None = None
    exit_zero: bool = False
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    add_suppressions: bool = False
    statistics: bool = False
    spec: str | None = None
    jobs: int = 0  # processes to lint in; 0: one per available CPU (see parallel.py)


class CompileOptions(NamedTuple):
    path: str
    to: Format = Format.TEXT
    output: str | None = None
    max_bytes: int = inputs.DEFAULT_MAX_BYTES


class ConvertOptions(NamedTuple):
    path: str
    to: Format
    output: str | None = None
    message_type: str | None = None
    max_bytes: int = inputs.DEFAULT_MAX_BYTES
    stdin_filename: str | None = None


class Streams(NamedTuple):
    out: TextIO
    err: TextIO

    @classmethod
    def standard(cls) -> Streams:
        return cls(sys.stdout, sys.stderr)


def error(streams: Streams, message: str) -> None:
    streams.err.write(f"tpuemb: error: {message}\n")


def _emit(output: bytes, path: str | None, streams: Streams) -> int:
    """Writes a converted or compiled message to ``path`` (atomically), or to stdout."""
    from tpuemb_cli import atomic

    if path is None or path == "-":
        streams.out.flush()
        binary_out = getattr(streams.out, "buffer", None)
        if binary_out is not None:
            binary_out.write(output)
            binary_out.flush()
        else:
            streams.out.write(output.decode("utf-8", errors="surrogateescape"))
        return EXIT_OK
    try:
        atomic.write_atomic(Path(path), output)
    except OSError as problem:
        error(streams, f"{path}: cannot write: {problem.strerror or problem}")
        return EXIT_ERROR
    return EXIT_OK


def _write_outputs(report: formatters.Report, options: CheckOptions, streams: Streams) -> bool:
    from tpuemb_cli import atomic

    ok = True
    for output in options.outputs:
        text = formatters.get(output.format)(report, options.color and output.path is None)
        if output.path is None:
            streams.out.write(text)
            continue
        try:
            atomic.write_atomic(Path(output.path), text.encode("utf-8"))
        except OSError as problem:
            error(streams, f"{output.path}: cannot write the report: {problem.strerror or problem}")
            ok = False
    return ok


def _statistics(findings: Sequence[Finding], streams: Streams) -> None:
    counts = Counter((f.rule, f.name, f.autofix is not None) for f in findings)
    for (code, name, fixable), count in sorted(
        counts.items(), key=lambda item: (-item[1], item[0])
    ):
        streams.out.write(f"{count:>5}  {code}  {'[*]' if fixable else '   '} {name}\n")


class _Outcome(NamedTuple):
    """What linting one file gave: its findings, its text when a report may quote it, or an
    error (exit code 2)."""

    findings: Sequence[Finding]
    text: str | None
    error: str | None


def _workers(
    tasks: Sequence[tuple[inputs.Input, Settings] | str], options: CheckOptions, fixing: bool
) -> int:
    """Processes to lint in: one when fixing (fixes write files and ask in order), reading stdin,
    or when configuration suppressions are in use (which must see every file's findings to tell
    which suppressed nothing); else as ``--jobs`` says, if there are enough files to pay."""
    from tpuemb_cli.parallel import workers_for

    if fixing:
        return 1
    for task in tasks:
        if not isinstance(task, str) and (task[0].path is None or task[1].suppress):
            return 1
    return workers_for(len(tasks), options.jobs)


def check(options: CheckOptions, streams: Streams) -> int:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import load_bytes
    from tpuemb_cli.parallel import map_in_workers
    from tpuemb_cli.settings import Resolver, SettingsError, expand

    try:
        resolver = Resolver(Path(options.config) if options.config else None, options.isolated)
        for selectors in (options.select or (), options.extend_select, options.ignore):
            unknown = [s for s in selectors if not expand([s])]
            if unknown:
                error(streams, f"unknown rule {unknown[0]!r} (`tpuemb rules` lists them)")
                return EXIT_ERROR
        fail_level = Severity.parse(options.fail_level) if options.fail_level else None
    except (SettingsError, ValueError) as problem:
        error(streams, str(problem))
        return EXIT_ERROR

    engines: dict[int, Engine] = {}

    def engine_for(settings: Settings) -> Engine:
        # One engine per configuration file (keyed by the file's settings, not by the copy the
        # command line's selection makes: that would make an engine per linted file).
        engine = engines.get(id(settings))
        if engine is None:
            selected = settings
            if options.select is not None or options.extend_select or options.ignore:
                selected = settings._replace(
                    select=tuple(options.select) if options.select is not None else settings.select,
                    extend_select=settings.extend_select + tuple(options.extend_select),
                    ignore=settings.ignore + tuple(options.ignore),
                )
            engine = engines[id(settings)] = Engine(selected)
        return engine

    expected = None
    if options.spec:
        loaded = _load_spec(options.spec, options.max_bytes, streams)
        if loaded is None:
            return EXIT_ERROR
        spec_document, spec_findings = loaded
        findings_from_spec = list(spec_findings)
        from tpuemb_cli.engine import Expected
        from tpuemb_cli.spec.compiler import compile_spec

        if spec_document.message is not None:
            expected = Expected(
                spec_document,
                compile_spec(spec_document.message),  # type: ignore[arg-type]
            )
    else:
        findings_from_spec = []

    fixer = None
    if options.fix or options.diff or options.unsafe_fixes or options.add_suppressions:
        from tpuemb_cli.fixer import Fixer

        fixer = Fixer(options, streams)
    findings: list[Finding] = list(findings_from_spec)
    sources: dict[str, str] = {}
    # First, in order and here: which files, with which settings (cheap, and errors in order).
    tasks: list[tuple[inputs.Input, Settings] | str] = []
    for item in inputs.expand(list(options.paths), options.stdin_filename):
        if isinstance(item, inputs.InputError):
            tasks.append(str(item))
            continue
        try:
            settings = resolver.for_file(
                item.name if item.path is not None or options.stdin_filename else None
            )
        except SettingsError as problem:
            tasks.append(str(problem))
            continue
        if not settings.excluded(item.name):
            tasks.append((item, settings))

    def lint(task: tuple[inputs.Input, Settings] | str) -> _Outcome:
        """Reads, loads and lints one file (in a worker process, when there are many)."""
        if isinstance(task, str):
            return _Outcome((), None, task)
        item, settings = task
        try:
            data = inputs.read(item, options.max_bytes)
        except inputs.InputError as problem:
            return _Outcome((), None, str(problem))
        engine = engine_for(settings)
        document = load_bytes(data, item.name, None, options.message_type)
        found = engine.lint(document, expected)
        if fixer is not None:
            document, found = fixer.process(item, data, document, found, engine)
        return _Outcome(found, document.text if found else None, None)

    # The first file here, before any worker forks: it imports the rules the files need and fills
    # the parser's caches once, and the workers inherit them.
    outcomes = [lint(task) for task in tasks[:1]]
    outcomes += map_in_workers(lint, tasks[1:], _workers(tasks, options, fixer is not None))
    checked = unreadable = 0
    fail_levels: dict[str, Severity] = {}
    for task, outcome in zip(tasks, outcomes, strict=True):
        if outcome.error is not None:
            error(streams, outcome.error)
            unreadable += 1
            continue
        assert not isinstance(task, str)
        item, settings = task
        findings.extend(outcome.findings)
        if outcome.text is not None:
            sources[item.name] = outcome.text
        checked += 1
        fail_levels[item.name] = fail_level or settings.fail_level
    failed = unreadable > 0
    for engine in engines.values():
        findings.extend(engine.unused_config_suppressions())
    if fixer is not None and not fixer.finish():
        failed = True
    fixable = sum(1 for f in findings if f.autofix is not None and f.autofix.safe)
    report = formatters.Report(findings, checked, sources, fixable, unreadable)
    if options.statistics:
        _statistics(findings, streams)
    elif not (options.diff or (options.add_suppressions and fixer is not None)):
        failed = not _write_outputs(report, options, streams) or failed
    if failed:
        return EXIT_ERROR
    if options.diff:
        return EXIT_FINDINGS if fixer is not None and fixer.changed else EXIT_OK
    if options.exit_zero:
        return EXIT_OK
    default_level = fail_level or Severity.ERROR
    if any(f.severity >= fail_levels.get(f.file, default_level) for f in findings):
        return EXIT_FINDINGS
    return EXIT_OK


def _load_spec(
    path: str, max_bytes: int, streams: Streams
) -> tuple[Document, list[Finding]] | None:
    """A spec document and its findings; None (after saying why) when it cannot be read."""
    from tpuemb_cli import schema
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import load_bytes
    from tpuemb_cli.settings import Resolver, SettingsError

    item = next(iter(inputs.expand([path])))
    if isinstance(item, inputs.InputError):
        error(streams, str(item))
        return None
    try:
        data = inputs.read(item, max_bytes)
        settings = Resolver().for_file(item.name)
    except (inputs.InputError, SettingsError) as problem:
        error(streams, str(problem))
        return None
    document = load_bytes(data, item.name, None, "EmbeddingSpec")
    if document.message is not None and not isinstance(
        document.message, schema.MESSAGE_TYPES["EmbeddingSpec"]
    ):
        error(streams, f"{item.name}: not an embedding spec")
        return None
    return document, Engine(settings).lint(document)


def compile_command(options: CompileOptions, streams: Streams) -> int:
    from tpuemb_cli.convert import render
    from tpuemb_cli.spec.compiler import compile_spec

    loaded = _load_spec(options.path, options.max_bytes, streams)
    if loaded is None:
        return EXIT_ERROR
    document, found = loaded
    if found:
        streams.err.write(formatters.get("concise")(formatters.Report(found, 1), False))
    if document.message is None or any(f.severity is Severity.ERROR for f in found):
        error(streams, f"{document.name}: not compiled: the spec has errors")
        return EXIT_FINDINGS
    compiled = compile_spec(document.message)  # type: ignore[arg-type]
    output = render(compiled.config, options.to)
    return _emit(output, options.output, streams)


def explain(path: str, message_type: str | None, max_bytes: int, streams: Streams) -> int:
    from tpuemb_cli.explain import explain_document
    from tpuemb_cli.load import load_bytes

    item = next(iter(inputs.expand([path])))
    if isinstance(item, inputs.InputError):
        error(streams, str(item))
        return EXIT_ERROR
    try:
        data = inputs.read(item, max_bytes)
    except inputs.InputError as problem:
        error(streams, str(problem))
        return EXIT_ERROR
    document = load_bytes(data, item.name, None, message_type)
    if document.message is None:
        error(streams, f"{item.name}: does not parse; run `tpuemb check` on it")
        return EXIT_FINDINGS
    streams.out.write(explain_document(document))
    return EXIT_OK


def convert(options: ConvertOptions, streams: Streams) -> int:
    from tpuemb_cli.convert import ConversionError, render
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import load_bytes

    item = next(iter(inputs.expand([options.path], options.stdin_filename)))
    if isinstance(item, inputs.InputError):
        error(streams, str(item))
        return EXIT_ERROR
    try:
        data = inputs.read(item, options.max_bytes)
    except inputs.InputError as problem:
        error(streams, str(problem))
        return EXIT_ERROR
    document = load_bytes(data, item.name, None, options.message_type)
    if document.problems or document.message is None:
        # A file that does not parse cleanly would convert with fields missing.
        parse_findings = [f for f in Engine().lint(document) if f.severity is Severity.ERROR]
        report = formatters.Report(parse_findings, 1)
        streams.err.write(formatters.get("concise")(report, False))
        error(streams, f"{item.name}: not converted: the input does not parse cleanly")
        return EXIT_FINDINGS
    try:
        output = render(document.message, options.to)
    except ConversionError as problem:
        error(streams, f"{item.name}: {problem}")
        return EXIT_ERROR
    return _emit(output, options.output, streams)
