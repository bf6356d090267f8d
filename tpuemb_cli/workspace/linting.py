"""One document through the pipeline: settings -> exclusion -> load -> engine, with a crash in
tpuemb turned into a finding on that document. Every front end (``check``, the language server,
the Python API, ``explain``, ``compile``'s spec check) lints through ``Workspace.lint_document``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from tpuemb_cli import load as loader
from tpuemb_cli.engine import Engine
from tpuemb_cli.engine.discovery import Resolver
from tpuemb_cli.engine.settings import Selection, Settings, SettingsError
from tpuemb_cli.load import Document, Skipped
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.model.records import Record
from tpuemb_cli.spec.facts import facts_of

if TYPE_CHECKING:
    from pathlib import Path

    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.spec.facts import SpecFacts

__all__ = ["Linted", "Unsettled", "Workspace", "debug_tracebacks", "facts_of"]

# Where a crash's traceback goes: the CLI prints it only with TPUEMB_DEBUG, the server logs it.
CrashReporter = Callable[[str, BaseException], None]


def debug_tracebacks(during: str, error: BaseException) -> None:
    """With TPUEMB_DEBUG set, the traceback of an internal error on stderr; the run goes on."""
    if os.environ.get("TPUEMB_DEBUG"):
        import sys
        import traceback  # and textwrap, whose patterns compile on import: for a traceback only

        from tpuemb_cli.model.words import printable

        sys.stderr.write(f"tpuemb: internal error {printable(during)}:\n")
        traceback.print_exception(error, file=sys.stderr)


class Linted(Record):
    """What linting one document gave.

    ``document`` is None when it was not linted: ``skipped`` says why (not a TPU embedding
    document, excluded by the configuration), or ``error`` (a configuration that cannot be used,
    exit 2). A bug in tpuemb on the document is an ``internal-error`` finding, ``document`` None.
    """

    name: str
    document: Document | None
    findings: list[Finding]
    engine: Engine | None = None
    skipped: str | None = None
    error: str | None = None
    # A spec's compiled config and SparseCore layout, as its rules saw them (None for others).
    facts: SpecFacts | None = None


class Unsettled(Record):
    """Why a document has no settings (exit 2): ``config``, a configuration that cannot be used
    (one error however many documents it governs); else the folder cannot be searched (the
    working directory is gone)."""

    message: str
    config: bool


class Workspace:
    """The settings of every document of a run, found as ``tpuemb check`` finds them (the
    nearest ``.tpuemb.toml`` or ``pyproject.toml`` with ``[tool.tpuemb]``; ``config``: one file
    for all; ``isolated``: none), merged with ``selection`` (the command line's), and one engine
    per configuration: its rules are imported once, and the configuration suppressions it saw
    unused are reported once, however many documents it governs."""

    def __init__(
        self,
        config: Path | None = None,
        isolated: bool = False,
        selection: Selection | None = None,
        report_crash: CrashReporter = debug_tracebacks,
        command: str = "check",
    ) -> None:
        """Raises SettingsError for a ``config`` that cannot be used. ``command``: whose rules
        the engines run (``check``: the lint rules; ``diff``: the kinds of change)."""
        self._config, self._isolated, self._selection = config, isolated, selection
        self.command = command
        self.report_crash = report_crash
        self.reset()

    def reset(self) -> None:
        """Forgets every configuration read (one changed): the next lint looks again."""
        self._resolver = Resolver(self._config, self._isolated, self._selection)
        self._engines: dict[tuple[int, str], Engine] = {}

    def settings_for(self, name: str | None) -> Settings:
        """The settings of the document ``name`` (None: read from stdin, governed by the working
        directory's configuration). Raises SettingsError for a configuration that cannot be
        used, OSError when the folder cannot be searched (the working directory is gone)."""
        return self._resolver.for_file(name)

    def engine_for(self, settings: Settings, command: str | None = None) -> Engine:
        """The engine of ``settings`` for ``command`` (default: the workspace's)."""
        key = (id(settings), command or self.command)
        engine = self._engines.get(key)
        if engine is None:
            engine = self._engines[key] = Engine(settings, key[1])
        return engine

    def unused_config_suppressions(self) -> list[Finding]:
        # Those of the run's own rules: the engines another command's rules lint with (diff
        # lints a spec with check's, to refuse what `compile` refuses) report none.
        return [
            finding
            for (_, command), engine in self._engines.items()
            if command == self.command
            for finding in engine.unused_config_suppressions()
        ]

    def lint_document(
        self,
        data: bytes,
        name: str,
        *,
        message_type: str | None = None,
        walked: bool = False,
        on_disk: bool = True,
        exclude: bool = True,
        settings: Settings | None = None,
        expected: Expected | None = None,
    ) -> Linted:
        """Lints the bytes of the document ``name``.

        ``message_type``: what the user said it is (else its content decides); ``walked``: found
        in a folder, or opened in an editor: a file that is no TPU embedding document is
        skipped, not reported; ``on_disk``: ``name`` is a file's path, which its configuration
        is found from (else the working directory's governs); ``exclude``: a document the
        configuration excludes is skipped (``compile`` and ``explain`` do what they are told);
        ``settings``: already resolved (``check`` resolves them first, to report in order, and
        applies ``exclude`` itself); ``expected``: a compiled spec, for drift findings.
        """
        if settings is None:
            found = self.resolve(name, on_disk, exclude)
            if isinstance(found, Linted):
                return found
            settings = found
        return self._lint(name, settings, expected, _Unloaded(data, message_type, walked))

    def lint_loaded(
        self, document: Document, *, on_disk: bool = True, expected: Expected | None = None
    ) -> Linted:
        """Lints a document its caller loaded (the API's strings and message objects), with the
        settings its name's configuration gives (``on_disk``; else the working directory's)."""
        found = self.resolve(document.name, on_disk, exclude=False)
        if isinstance(found, Linted):
            return found
        return self._lint(document.name, found, expected, document)

    def resolve(self, name: str, on_disk: bool, exclude: bool) -> Settings | Linted:
        """The settings of ``name``, or why it is not linted (a Linted with ``error`` or
        ``skipped``)."""
        settings = self.settings_or_why(name, on_disk)
        if isinstance(settings, Unsettled):
            return Linted(name, None, [], error=settings.message)
        if exclude and on_disk and settings.excluded(name):
            return Linted(name, None, [], skipped="excluded by the configuration")
        return settings

    def settings_or_why(self, name: str, on_disk: bool) -> Settings | Unsettled:
        """The settings of ``name`` (``on_disk``: found from its path, else from the working
        directory), or why there are none: the one place that says it, for ``resolve`` and
        for ``check``'s plan (which says each configuration's error once)."""
        try:
            return self.settings_for(name if on_disk else None)
        except SettingsError as problem:
            return Unsettled(str(problem), config=True)
        except OSError as problem:  # the folder is gone
            why = problem.strerror or str(problem)
            return Unsettled(f"{name}: cannot look for configuration: {why}", config=False)

    def _lint(
        self,
        name: str,
        settings: Settings,
        expected: Expected | None,
        source: Document | _Unloaded,
    ) -> Linted:
        """Loads (unless ``source`` is loaded) and lints one document; a crash in tpuemb is a
        finding on it. (The loader is called here, not through a callable: an internal error's
        place is the innermost frame of tpuemb's below this one.)"""
        engine = self.engine_for(settings)
        during = "while loading the file"
        try:
            if isinstance(source, _Unloaded):
                loaded = loader.load_input(source.data, name, source.message_type, source.walked)
            else:
                loaded = source
            if isinstance(loaded, Skipped):
                return Linted(name, None, [], engine, skipped=loaded.reason)
            during = "while linting the file"
            facts = facts_of(loaded)
            findings = engine.lint(loaded, expected, facts)
            for where, error in engine.crashes:
                self.report_crash(where, error)
        except Exception as error:  # a bug in tpuemb: a finding on this file, not a stop
            self.report_crash(during, error)
            return Linted(name, None, [engine.crashed(name, during, error)], engine)
        return Linted(name, loaded, findings, engine, facts=facts)


class _Unloaded(Record):
    """A document's bytes, and what ``load_input`` needs to load them."""

    data: bytes
    message_type: str | None
    walked: bool
