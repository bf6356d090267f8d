"""The files of a ``tpuemb check``: which, with which settings (``plan``), and each read, loaded
and linted, in forked workers when there are many (``lint_all``). A bug in tpuemb on one file is
an `internal-error` finding on that file, and the other files go on."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tpuemb_cli.cli import inputs
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from tpuemb_cli.cli.check import CheckOptions
    from tpuemb_cli.cli.fixing import FileChanges
    from tpuemb_cli.engine.settings import Settings
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.workspace import Workspace


Task = tuple[inputs.Input, "Settings"] | str  # a file to lint with its settings, or an error


class Outcome(Record):
    """What linting one file gave: its findings, its text when a report may quote it, or an
    error (exit code 2)."""

    findings: Sequence[Finding]
    text: str | None
    error: str | None
    skipped: str | None = None  # why a walked file is not a TPU embedding document
    # The name its findings carry, when not the input's: a member of an archive it was read from
    # (``model.keras!config.json``).
    file: str | None = None


class Plan(Record):
    """The files of a run in order, and the distinct configuration errors found on the way
    (each said once, however many files it governs; any of them stops the run: exit 2)."""

    tasks: list[Task]
    config_errors: list[str]


def plan(options: CheckOptions, workspace: Workspace) -> Plan:
    """Which files, with which settings, in order (cheap, and errors in order)."""
    from tpuemb_cli.workspace.linting import Unsettled

    tasks: list[Task] = []
    config_errors: dict[str, None] = {}
    for item in inputs.expand(list(options.paths), options.stdin_filename):
        if isinstance(item, inputs.InputError):
            tasks.append(str(item))
            continue
        on_disk = item.path is not None or bool(options.stdin_filename)
        settings = workspace.settings_or_why(item.name, on_disk)
        if isinstance(settings, Unsettled):
            if settings.config:
                config_errors[settings.message] = None
            else:
                tasks.append(settings.message)
            continue
        if settings.excluded(item.name):
            continue
        named = not item.walked  # a walk yields only names tpuemb reads
        if options.documents_only and item.path is not None:
            item = item._replace(walked=True)
        if named and not options.message_type and other_language(item):
            # A file of another kind (a pre-commit hook passes every staged file): skipped,
            # unless --type says what it is.
            tasks.append((item._replace(walked=True, unread=True), settings))
            continue
        tasks.append((item, settings))
    return Plan(tasks, list(config_errors))


def other_language(item: inputs.Input) -> bool:
    """Whether a named file is skipped by its name: a regular file whose extension is not one
    tpuemb reads (``NOTES.md``, ``gen.py``). A file with no extension or a ``.txt`` (which a
    `# proto-message:` header may make one of ours), stdin, a pipe or a device is read and judged
    by its content."""
    from tpuemb_cli.load.identify import name_says

    if item.path is None or item.special:
        return False
    return name_says(item.name) == "foreign"


def lint_all(
    tasks: Sequence[Task],
    options: CheckOptions,
    workspace: Workspace,
    expected: Expected | None,
    changes: FileChanges | None,
) -> list[Outcome]:
    def lint(task: Task) -> Outcome:
        """Reads and lints one file (in a worker process, when there are many), then makes its
        changes; a bug in tpuemb on it is an `internal-error` finding, and the other files go
        on."""
        if isinstance(task, str):
            return Outcome((), None, task)
        item, settings = task
        if item.skip:
            return Outcome((), None, None, item.skip)
        if item.unread:
            extension = os.path.splitext(item.name)[1]  # noqa: PTH122
            why = f"tpuemb reads no {extension} files (pass --type if it is a TPU embedding one)"
            return Outcome((), None, None, why)
        try:
            data, stamp = inputs.read_stamped(item, options.max_bytes)
        except inputs.InputError as problem:
            return Outcome((), None, str(problem))
        linted = workspace.lint_document(
            data,
            item.name,
            message_type=options.message_type,
            walked=item.walked,
            settings=settings,
            expected=expected,
        )
        if linted.skipped is not None:
            return Outcome((), None, None, linted.skipped)
        document, found = linted.document, linted.findings
        if document is None:  # tpuemb failed on it: the internal-error finding
            return Outcome(found, None, None)
        if changes is not None:
            assert linted.engine is not None
            try:
                document, found = changes.process(item, data, stamp, document, found, linted.engine)
            except Exception as error:  # a bug in tpuemb: a finding on this file, not a stop
                during = "while fixing the file"
                workspace.report_crash(during, error)
                return Outcome([linted.engine.crashed(item.name, during, error)], None, None)
        named = document.name if document.name != item.name else None
        return Outcome(found, document.text if found else None, None, file=named)

    # The first file here, before any worker forks: it imports the rules the files need and fills
    # the parser's caches once, and the workers inherit them.
    outcomes = [lint(task) for task in tasks[:1]]
    if len(tasks) > 1:  # the worker machinery is imported only when there is more to do
        from tpuemb_cli.workspace.parallel import map_in_workers

        outcomes += map_in_workers(lint, tasks[1:], workers(tasks, options, changes is not None))
    return outcomes


def workers(tasks: Sequence[Task], options: CheckOptions, changing: bool) -> int:
    """Processes to lint in: one when changing files (fixes write files and ask in order),
    reading stdin, or when configuration suppressions are in use (which must see every file's
    findings to tell which suppressed nothing); else as ``--jobs`` says, if there are enough
    files to pay."""
    from tpuemb_cli.workspace.parallel import workers_for

    if changing:
        return 1
    for task in tasks:
        if not isinstance(task, str) and (task[0].path is None or task[1].suppress):
            return 1
    return workers_for(len(tasks), options.jobs)
