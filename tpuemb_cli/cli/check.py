"""``tpuemb check``: lint inputs and report, or fix them, or write a suppression baseline.

Exit codes: 0 no finding at or above the fail level, 1 at least one (or, with ``--diff``,
something to fix), 2 usage error, bad configuration, unreadable input or internal error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from tpuemb_cli import formatters
from tpuemb_cli.cli import inputs
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    FrontEndOptions,
    StatsOptions,
    Streams,
    color,
    error,
    front_end_options,
    max_size_option,
    note,
    run,
    stats_options,
    stdin_option,
    tpu_option,
    type_option,
)
from tpuemb_cli.cli.linting import lint_all, plan
from tpuemb_cli.cli.outputs import (
    OrderedCommand,
    Output,
    pair_outputs,
    print_statistics,
    refuse_inputs,
    report_options,
    write_reports,
)
from tpuemb_cli.cli.selection import open_workspace, settings_options
from tpuemb_cli.model.findings import Finding, Severity
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import plural, printable

if TYPE_CHECKING:
    from tpuemb_cli.cli.fixing import FileChanges


class CheckOptions(Record):  # not typing.NamedTuple: model/records.py says why
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
    tpu: str | None = None
    front_end_options: FrontEndOptions = ()
    stats: StatsOptions = StatsOptions()
    fail_level: str | None = None
    exit_zero: bool = False
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    add_suppressions: bool = False
    statistics: bool = False
    spec: str | None = None
    jobs: int = 0  # processes to lint in; 0: one per available CPU (see parallel.py)
    show_files: bool = False
    show_settings: bool = False  # print the settings of each input; lint nothing
    fixable: tuple[str, ...] = ()  # --fixable: only these rules' fixes (selectors)
    unfixable: tuple[str, ...] = ()  # --unfixable: never these rules' fixes
    show_fixes: bool = False  # list the fixes made, by file and rule
    exit_non_zero_on_fix: bool = False  # exit 1 when --fix fixed something
    quiet: bool = False  # findings only: no summary, no notes on what was skipped or fixed
    # Named files that are not TPU embedding documents are skipped, as walked ones are (a
    # pre-commit hook names every staged file with a matching extension).
    documents_only: bool = False


def execute(options: CheckOptions, streams: Streams) -> int:
    """Carries out ``check``; returns the exit code."""
    workspace = open_workspace(
        streams,
        options.config,
        options.isolated,
        options.select,
        options.extend_select,
        options.ignore,
        options.tpu,
        front_end_options=options.front_end_options,
        stats=options.stats,
    )
    if workspace is None:
        return EXIT_ERROR
    if options.show_settings:
        from tpuemb_cli.cli.show_settings import show

        return show(workspace, options.paths, streams)
    fail_level = Severity.parse(options.fail_level) if options.fail_level else None

    findings: list[Finding] = []
    expected = None
    if options.spec:
        from tpuemb_cli.cli.specs import load_spec

        loaded = load_spec(options.spec, options.max_bytes, streams, workspace)
        if loaded is None:
            return EXIT_ERROR
        findings.extend(loaded.findings)
        expected = loaded.expected()

    changes = None
    if options.fix or options.diff or options.add_suppressions:
        from tpuemb_cli.cli.fixing import FileChanges
        from tpuemb_cli.fix.apply import FixPolicy

        policy = FixPolicy(options.unsafe_fixes, *_fix_rules(options))
        changes = FileChanges(
            streams,
            policy,
            options.diff,
            options.add_suppressions,
            options.isolated,
            options.quiet,
        )

    planned = plan(options, workspace)
    if planned.config_errors:
        # A configuration that cannot be used is the run's problem, not each file's: said once.
        for message in planned.config_errors:
            error(streams, message)
        return EXIT_ERROR
    tasks = planned.tasks
    outcomes = lint_all(tasks, options, workspace, expected, changes)
    checked = unreadable = 0
    skipped: list[tuple[str, str]] = []
    sources: dict[str, str] = {}
    fail_levels: dict[str, Severity] = {}
    for task, outcome in zip(tasks, outcomes, strict=True):
        if outcome.error is not None:
            error(streams, outcome.error)
            unreadable += 1
            continue
        assert not isinstance(task, str)
        item, settings = task
        if options.show_files:
            what = f"skipped: {outcome.skipped}" if outcome.skipped else "checked"
            streams.out.write(printable(f"{item.name}: {what}") + "\n")
        if outcome.skipped is not None:
            skipped.append((item.name, outcome.skipped))
            continue
        findings.extend(outcome.findings)
        file = outcome.file or item.name
        if outcome.text is not None:
            sources[file] = outcome.text
        checked += 1
        fail_levels[file] = fail_level or settings.fail_level
    # tpuemb failed on a file (each is an internal-error finding, which nothing hides): exit 2.
    failed = unreadable > 0 or any(f.name == "internal-error" for f in findings)
    if options.show_files:
        return EXIT_ERROR if failed else EXIT_OK
    if not checked and skipped and not options.quiet:
        _say_skipped(skipped, streams)
    findings.extend(workspace.unused_config_suppressions())
    if changes is not None and not changes.finish():
        failed = True
    report = _report(options, findings, checked, sources, unreadable, len(skipped), changes)
    if options.statistics:
        print_statistics(findings, streams)
    elif options.diff:
        if not options.quiet:
            _say_would_fix(report, changes, streams)
    elif not (options.add_suppressions and not findings):
        # --add-suppressions reports what it left: parse problems and suppression problems
        failed = not write_reports(report, options.outputs, options.color, streams) or failed
    if options.show_fixes and changes is not None and not options.diff:
        from tpuemb_cli.cli.fixing import show_fixes

        show_fixes(changes, streams)
    if failed:
        return EXIT_ERROR
    if changes is not None and changes.stale:
        return EXIT_FINDINGS  # a file changed while it was fixed: not fixed, run again
    if options.exit_non_zero_on_fix and changes is not None and changes.fixed:
        return EXIT_FINDINGS  # as ruff: something was fixed, even if nothing remains
    if options.exit_zero:
        return EXIT_OK
    if options.diff:
        return EXIT_FINDINGS if changes is not None and changes.changed else EXIT_OK
    default_level = fail_level or Severity.ERROR
    if any(f.severity >= fail_levels.get(f.file, default_level) for f in findings):
        return EXIT_FINDINGS
    return EXIT_OK


def _fix_rules(options: CheckOptions) -> tuple[frozenset[str] | None, frozenset[str]]:
    """The codes --fixable names (None: every rule) and --unfixable names."""
    from tpuemb_cli.engine.selectors import selector_codes

    fixable = None
    if options.fixable:
        fixable = frozenset(code for s in options.fixable for code in selector_codes(s))
    unfixable = frozenset(code for s in options.unfixable for code in selector_codes(s))
    return fixable, unfixable


def _report(
    options: CheckOptions,
    findings: list[Finding],
    checked: int,
    sources: dict[str, str],
    unreadable: int,
    skipped: int,
    changes: FileChanges | None,
) -> formatters.Report:
    """The report of a run: its findings, and what ``--fix`` did or could do."""
    fixing = changes is not None and not options.diff and not options.add_suppressions
    return formatters.Report(
        findings,
        checked,
        sources,
        unreadable=unreadable,
        unsafe_fixes=options.unsafe_fixes,
        fixed=changes.fixes if fixing and changes is not None else None,
        unfixable=_not_fixed(options),
        skipped=skipped,
        quiet=options.quiet,
    )


def _not_fixed(options: CheckOptions) -> frozenset[str]:
    """The rules whose fixes this run does not apply: not marked ``[*]``, not counted."""
    if not options.fixable and not options.unfixable:
        return frozenset()
    from tpuemb_cli.rules import all_rules

    fixable, unfixable = _fix_rules(options)
    codes = frozenset(rule.code for rule in all_rules())
    return (codes - fixable if fixable is not None else frozenset()) | unfixable


# Skipped inputs named one by one when a run checked nothing; more go to --show-files.
_SKIPPED_SHOWN = 10


def _say_skipped(skipped: list[tuple[str, str]], streams: Streams) -> None:
    """Why a run that checked nothing checked nothing: each skipped input and why."""
    for name, reason in skipped[:_SKIPPED_SHOWN]:
        note(streams, f"{name}: skipped: {reason}")
    if len(skipped) > _SKIPPED_SHOWN:
        more = len(skipped) - _SKIPPED_SHOWN
        note(streams, f"and {more} more skipped (--show-files lists every input)")


def _say_would_fix(
    report: formatters.Report, changes: FileChanges | None, streams: Streams
) -> None:
    """After ``--diff``'s diffs, on stderr: how many fixes they make, as ruff says it."""
    count = changes.fixes if changes is not None else 0
    hidden = (
        f" ({plural(report.hidden_fixes, 'additional fix', 'additional fixes')} available with "
        "`--unsafe-fixes`)"
        if report.hidden_fixes
        else ""
    )
    if count:
        streams.err.write(f"Would fix {plural(count, 'finding')}{hidden}.\n")
    else:
        streams.err.write(f"No findings would be fixed{hidden}.\n")


# -- the command line ---------------------------------------------------------------------------
def _check_help() -> str:
    from tpuemb_cli.load.encodings import EXTENSIONS

    return (
        f"Lint configs, specs and graphs ({' '.join(EXTENSIONS)}), directories of them (a "
        "SavedModel's too; default: the current directory), or - for stdin.\n\nExit code 0: no "
        "finding at the fail level; 1: at least one (with --diff: something to fix); 2: usage "
        "error, bad configuration or unreadable input."
    )


def _rule_selectors(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    """Each selector names a rule (as --select's must), or it is a usage error."""
    from tpuemb_cli.engine.selectors import selector_codes

    for selector in value:
        if not selector_codes(selector):
            raise click.BadParameter(f"{selector!r} names no rule (`tpuemb rules` lists them)")
    return value


@click.command("check", cls=OrderedCommand, help=_check_help())
@click.argument("paths", nargs=-1)
@report_options
@type_option
@stdin_option
@max_size_option
@settings_options("rules")
@tpu_option
@front_end_options
@stats_options
@click.option(
    "--fail-level",
    type=click.Choice(["error", "warning", "info"]),
    help="Exit 1 when a finding is at least this severe (default: error).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--fix", is_flag=True, help="Apply safe fixes to the files.")
@click.option(
    "--unsafe-fixes",
    is_flag=True,
    help="Count unsafe fixes as fixable, and apply them too with --fix or --diff.",
)
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option(
    "--fixable",
    multiple=True,
    metavar="RULE",
    callback=_rule_selectors,
    help="Apply the fixes of these rules only (codes, names or prefixes; repeatable).",
)
@click.option(
    "--unfixable",
    multiple=True,
    metavar="RULE",
    callback=_rule_selectors,
    help="Never apply the fixes of these rules (codes, names or prefixes; repeatable).",
)
@click.option(
    "--show-fixes",
    is_flag=True,
    help="After --fix, list the fixes made, by file and rule (on stderr).",
)
@click.option(
    "--exit-non-zero-on-fix",
    is_flag=True,
    help="Exit 1 when --fix fixed something, even if no finding remains.",
)
@click.option(
    "--add-suppressions",
    is_flag=True,
    help="Suppress the current findings, except parse problems and problems with suppressions "
    "(a baseline for adopting tpuemb).",
)
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule.")
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="Print the findings only: no summary, no notes on what was fixed or skipped.",
)
@click.option(
    "--documents-only",
    is_flag=True,
    help="Skip named files that are not TPU embedding documents, as files found in directories "
    "are (what the pre-commit hooks pass).",
)
@click.option(
    "--show-files",
    is_flag=True,
    help="List each input and whether it is checked or skipped (not a TPU embedding document), "
    "with why; report nothing else.",
)
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print the settings each input is checked with (the configuration file found, every "
    "key resolved with the command line's); check nothing.",
)
@click.option(
    "--spec",
    "spec",
    metavar="SPEC",
    help="Also report where each config differs from what SPEC compiles to (drift).",
)
@click.option(
    "--jobs",
    "-j",
    metavar="N",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    envvar="TPUEMB_JOBS",
    help="Processes to lint many files in; 0: one per available CPU. One process for a few "
    "dozen files, with --fix or --diff, stdin, or configuration suppressions.",
)
@click.pass_context
def command(
    ctx: click.Context,
    paths: tuple[str, ...],
    formats: tuple[str, ...],
    output_files: tuple[str, ...],
    message_type: str | None,
    stdin_filename: str | None,
    max_bytes: int,
    config: str | None,
    isolated: bool,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    tpu: str | None,
    front_end_options: FrontEndOptions,
    stats: StatsOptions,
    fail_level: str | None,
    exit_zero: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    fixable: tuple[str, ...],
    unfixable: tuple[str, ...],
    show_fixes: bool,
    exit_non_zero_on_fix: bool,
    add_suppressions: bool,
    statistics: bool,
    quiet: bool,
    show_files: bool,
    documents_only: bool,
    show_settings: bool,
    spec: str | None,
    jobs: int,
) -> None:
    if config and isolated:
        raise click.UsageError("--config and --isolated contradict each other")
    if diff and add_suppressions:
        # --diff promises to write nothing; --add-suppressions writes comments and settings.
        raise click.UsageError("--add-suppressions writes; --diff writes nothing: use one")
    for flag, given in (("--diff", diff), ("--add-suppressions", add_suppressions)):
        if given and output_files:
            # Neither prints a report (--diff prints fixes): the file would silently stay unwritten.
            raise click.UsageError(f"--output-file writes a report, which {flag} does not print")
    outputs = pair_outputs(ctx, formats, output_files)
    refuse_inputs(outputs, [*paths, *([spec] if spec else [])])
    options = CheckOptions(
        paths=list(paths) or ["."],  # as ruff: the current directory
        outputs=outputs,
        message_type=message_type,
        stdin_filename=stdin_filename,
        max_bytes=max_bytes,
        color=color(sys.stdout),
        config=config,
        isolated=isolated,
        select=list(select) if select else None,
        extend_select=list(extend_select),
        ignore=list(ignore),
        tpu=tpu,
        front_end_options=front_end_options,
        stats=stats,
        fail_level=fail_level,
        exit_zero=exit_zero,
        # As ruff: --unsafe-fixes alone writes nothing; it marks and counts unsafe fixes as
        # fixable, and makes --fix and --diff apply them.
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        diff=diff,
        add_suppressions=add_suppressions,
        statistics=statistics,
        quiet=quiet,
        spec=spec,
        jobs=jobs,
        show_files=show_files,
        documents_only=documents_only,
        show_settings=show_settings,
        fixable=fixable,
        unfixable=unfixable,
        show_fixes=show_fixes,
        exit_non_zero_on_fix=exit_non_zero_on_fix,
    )
    run(execute, options, Streams.standard())
