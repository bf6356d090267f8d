"""``tpuemb diff``: will a checkpoint written under the old config restore under the new one?

``tpuemb diff OLD NEW`` compares two configs or specs (any encoding; a spec is compiled first);
``tpuemb diff --against REF [PATH...]`` compares each config or spec under the paths with its
version at a git revision. Each pair goes through the workspace (``workspace.diff_versions``):
the settings of the new file select, ignore and acknowledge changes, which are findings of the
catalog's kinds of change, reported by the linter's formatters. Exit 1 when a change is of a
kind ``--fail-on`` names, 2 when an input or the revision cannot be read.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from tpuemb_cli.cli import inputs
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    FrontEndOptions,
    Streams,
    color,
    error,
    front_end_options,
    max_size_option,
    note,
    read_input,
    run,
    tpu_option_saying,
    type_option,
)
from tpuemb_cli.cli.outputs import (
    OrderedCommand,
    Output,
    pair_outputs,
    refuse_inputs,
    report_options,
    write_reports,
)
from tpuemb_cli.cli.selection import open_workspace, settings_options
from tpuemb_cli.frontends import checkpoints_help
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.model.words import printable
from tpuemb_cli.rules import CHANGES

if TYPE_CHECKING:
    from tpuemb_cli.workspace import Diffed, Workspace


# Every kind of change, worst first (the catalog's rules of the diff family).
KINDS = tuple(entry.name for entry in CHANGES)
DEFAULT_FAIL_ON = ("restore-error", "silent-reinit")


class DiffOptions(NamedTuple):
    files: tuple[str, ...]
    against: str | None = None
    outputs: Sequence[Output] = (Output("concise", None),)
    fail_on: frozenset[str] = frozenset(DEFAULT_FAIL_ON)
    max_bytes: int = inputs.DEFAULT_MAX_BYTES
    documents_only: bool = False  # named files that are no TPU embedding document: skipped
    config: str | None = None
    isolated: bool = False
    select: Sequence[str] | None = None
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    color: bool = False
    show_files: bool = False  # list each pair as compared, skipped (and why) or not comparable
    message_type: str | None = None  # --type: what both sides hold
    against_checkpoint: str | None = None  # compare FILE with this checkpoint (TF or Orbax)
    checkpoint_prefix: str | None = None  # where the embedding's variables are in it
    step: int | None = None  # --step: of an Orbax CheckpointManager root
    tpu: str | None = None  # --tpu: where a Keras-RS model's tables go, and how they stack
    front_end_options: FrontEndOptions = ()  # --keras-backend


def _two_files(options: DiffOptions, workspace: Workspace, streams: Streams) -> list[Diffed] | None:
    from tpuemb_cli.workspace import Version, diff_versions

    versions = []
    for path in options.files:
        read = read_input(path, options.max_bytes, streams)
        if read is None:
            return None
        item, data = read
        versions.append(Version(data, item.name, message_type=options.message_type))
    old, new = versions
    return [diff_versions(workspace, old, new, new.name)]


def _revision(
    options: DiffOptions, workspace: Workspace, streams: Streams
) -> tuple[list[Diffed], bool]:
    """Each path's pair, and whether a path could not be read (said on stderr)."""
    from tpuemb_cli.cli.against import versions
    from tpuemb_cli.workspace import Version, diff_versions

    assert options.against is not None
    found, problems = versions(options.against, options.files or (".",), options.max_bytes)
    for problem in problems:
        error(streams, problem)
    done = []
    for version in found:
        walked = version.walked or options.documents_only
        old = new = None
        said = options.message_type
        if version.old is not None:
            old = Version(version.old, f"{options.against}:{version.old_name}", walked, said)
        if version.new is not None:
            new = Version(version.new, version.name, walked, said)
        done.append(
            diff_versions(workspace, old, new, version.name, options.against, version.walked)
        )
    return done, bool(problems)


def _checkpoint(
    options: DiffOptions, workspace: Workspace, streams: Streams
) -> list[Diffed] | None:
    from pathlib import Path

    from tpuemb_cli.frontends import checkpoint_readers
    from tpuemb_cli.load.checkpoint import UnreadableCheckpoint, read_checkpoint
    from tpuemb_cli.load.orbax import is_orbax, read_orbax
    from tpuemb_cli.workspace import Version, diff_checkpoint

    assert options.against_checkpoint is not None
    checkpoint: Any
    # A front-end's own format of checkpoint, told by its files (a PyTorch distributed
    # checkpoint's folder), before Orbax's and TensorFlow's.
    reader = next(
        (r for r in checkpoint_readers() if r.is_checkpoint(options.against_checkpoint)), None
    )
    try:
        if reader is not None:
            checkpoint = reader.read_checkpoint(
                options.against_checkpoint, options.step, options.checkpoint_prefix
            )
            for said in checkpoint.notes:
                note(streams, said)
        # Told apart by their files: an Orbax step (or a manager's root of steps), else TF's.
        elif is_orbax(Path(options.against_checkpoint)):
            if options.checkpoint_prefix is not None:
                error(streams, "--checkpoint-prefix goes with a TensorFlow checkpoint")
                return None
            checkpoint = read_orbax(options.against_checkpoint, options.step)
            for said in checkpoint.notes:  # what was not read, and so not compared
                note(streams, said)
        else:
            if options.step is not None:
                error(
                    streams,
                    f"{options.against_checkpoint}: --step picks a step of an Orbax "
                    "CheckpointManager's root, and this is no Orbax checkpoint",
                )
                return None
            checkpoint = read_checkpoint(options.against_checkpoint)
    except UnreadableCheckpoint as problem:
        error(streams, str(problem))
        return None
    (path,) = options.files
    read = read_input(path, options.max_bytes, streams)
    if read is None:
        return None
    item, data = read
    version = Version(data, item.name, message_type=options.message_type)
    return [diff_checkpoint(workspace, version, checkpoint, options.checkpoint_prefix)]


def _unread(options: DiffOptions, streams: Streams) -> int:
    """An input that could not be read (said on stderr): the report still says so, empty, as
    `check`'s does, so that a CI step that uploads it (SARIF) finds one; exit 2."""
    from tpuemb_cli.formatters import Report

    if not options.show_files:
        report = Report([], 0, {}, unreadable=1, command="diff")
        write_reports(report, options.outputs, options.color, streams)
    return EXIT_ERROR


def execute(options: DiffOptions, streams: Streams) -> int:
    from tpuemb_cli.cli.against import GitError
    from tpuemb_cli.formatters import Report

    workspace = open_workspace(
        streams,
        options.config,
        options.isolated,
        options.select,
        options.extend_select,
        options.ignore,
        tpu=options.tpu,
        command="diff",
        front_end_options=options.front_end_options,
    )
    if workspace is None:
        return EXIT_ERROR
    failed = False
    try:
        if options.against_checkpoint is not None:
            done = _checkpoint(options, workspace, streams)
            if done is None:
                return _unread(options, streams)
        elif options.against is None:
            done = _two_files(options, workspace, streams)
            if done is None:
                return _unread(options, streams)
        else:
            done, failed = _revision(options, workspace, streams)
    except GitError as problem:
        for message in problem.args:
            error(streams, message)
        return EXIT_ERROR
    stopped = next((d for d in done if d.stop), None)
    if stopped is not None:
        # As in `check`: a configuration that cannot be used is said once, and nothing else.
        error(streams, str(stopped.error))
        return EXIT_ERROR
    if options.show_files:
        for diffed in done:
            what = (
                "cannot compare: "
                + diffed.error.split(": cannot compare: ", 1)[-1].replace(
                    " (reported below)", " (the report without --show-files lists them)"
                )
                if diffed.error is not None
                else f"skipped: {diffed.skipped}"
                if diffed.skipped is not None
                else "compared"
            )
            streams.out.write(printable(f"{diffed.name}: {what}") + "\n")
        return EXIT_ERROR if failed or any(d.error for d in done) else EXIT_OK
    findings: list[Finding] = []
    sources: dict[str, str] = {}
    for diffed in done:
        if diffed.error is not None:
            # A side that cannot be compared: said on stderr, its errors in the report; exit 2.
            error(streams, diffed.error)
            failed = True
        findings += diffed.findings
        sources.update(diffed.sources)
    findings += workspace.unused_config_suppressions()
    # `diff` fixes nothing: no finding of its report is marked fixable (`check --fix` removes
    # only the suppressions `check` judges).
    findings = sorted((f._replace(autofix=None) for f in findings), key=Finding.sort_key)
    compared = sum(1 for d in done if d.compared)
    report = Report(
        findings, compared, sources, unreadable=sum(1 for d in done if d.error), command="diff"
    )
    if not write_reports(report, options.outputs, options.color, streams):
        return EXIT_ERROR
    if failed or any(f.rule == "TE010" for f in findings):
        return EXIT_ERROR
    failing = any(f.change is not None and f.name in options.fail_on for f in findings)
    return EXIT_FINDINGS if failing else EXIT_OK


def _fail_on(ctx: click.Context, param: click.Parameter, value: str) -> frozenset[str]:
    from tpuemb_cli.rules import find

    kinds = {k.strip() for k in value.split(",") if k.strip()}
    if not kinds:
        # An unset variable in CI (`--fail-on "$KINDS"`) must not turn the gate off unseen.
        raise click.BadParameter("names no kind (kinds: " + ", ".join(KINDS) + "; or none)")
    if kinds == {"none"}:
        return frozenset()
    if "none" in kinds:
        raise click.BadParameter("`none` fails on nothing: it goes alone, not with kinds")
    named = set()
    for kind in sorted(kinds):
        entry = find(kind)
        if entry is None or entry.name not in KINDS:
            raise click.BadParameter(
                f"unknown kind {kind!r} (kinds: {', '.join(KINDS)}, or their codes; or none)"
            )
        named.add(entry.name)
    return frozenset(named)


def _refuse_inside(outputs: Sequence[Output], checkpoint: str) -> None:
    """A usage error when a report would be written into the checkpoint read (a file of an Orbax
    step, a TensorFlow checkpoint's folder): what a user owns is never replaced by a report."""
    from pathlib import Path

    where = Path(checkpoint)
    try:
        is_folder = where.is_dir()
        inside = (where if is_folder else where.parent).resolve()
    except (OSError, RuntimeError):
        return  # the checkpoint cannot be looked up: its reader says so

    for output in outputs:
        if output.path is None:
            continue
        try:
            target = Path(output.path).resolve()
        except (OSError, RuntimeError):
            continue
        in_folder = is_folder and inside in target.parents
        # A TensorFlow checkpoint named by its prefix or index: its files beside it.
        beside = (
            not is_folder
            and target.parent == inside
            and (target.name.startswith(f"{where.name}.") or target.name == "checkpoint")
        )
        if in_folder or beside:
            raise click.UsageError(
                f"--output-file {output.path} is inside the checkpoint {checkpoint}: the report "
                "would be written into it"
            )


@click.command("diff", cls=OrderedCommand)
@click.argument(
    "files", nargs=-1, metavar="OLD NEW | --against REF [PATH...] | --against-checkpoint CKPT FILE"
)
@click.option(
    "--against",
    metavar="REF",
    help="Compare each config or spec under PATH (default: .) with its version at this git "
    "revision.",
)
@report_options
@click.option(
    "--against-checkpoint",
    metavar="CKPT",
    help="Compare one file with a checkpoint: will it restore? A TensorFlow checkpoint "
    "(ckpt-N.index or its prefix, a folder with a `checkpoint` file, a SavedModel or its "
    "variables/) for a config or spec; an Orbax checkpoint (a step directory, or a "
    "CheckpointManager's root: its latest step) for a stacked layout of jax-tpu-embedding"
    + checkpoints_help()
    + ".",
)
@click.option(
    "--step",
    type=click.IntRange(min=0),
    metavar="N",
    help="With --against-checkpoint of an Orbax CheckpointManager's root: its step N "
    "(default: the latest).",
)
@click.option(
    "--checkpoint-prefix",
    metavar="PATH",
    help="With --against-checkpoint: the object path of the embedding in the checkpoint "
    "(tf.train.Checkpoint(embedding=...) saves it as `embedding`; in a PyTorch distributed "
    "checkpoint, the module path of the embedding collection; default: found).",
)
@click.option(
    "--fail-on",
    metavar="KINDS",
    default=",".join(DEFAULT_FAIL_ON),
    show_default=True,
    callback=_fail_on,
    help=f"Exit 1 when a change is of one of these kinds (comma-separated: {', '.join(KINDS)}; "
    "or their codes; or none).",
)
@settings_options("kinds of change")
@click.option(
    "--documents-only",
    is_flag=True,
    help="With --against: skip named files that are not TPU embedding documents, as files found "
    "in directories are (what the pre-commit hook passes).",
)
@click.option(
    "--show-files",
    is_flag=True,
    help="List each file and whether it is compared, skipped (no checkpoint layout, not a TPU "
    "embedding document) or cannot be compared, with why; report nothing else.",
)
@tpu_option_saying(
    "For Keras-RS models: the TPU the model trains on (a chip or an accelerator type, v5p-8): "
    "which tables go to SparseCores and how they stack decide what the saved weights hold. "
    "Overrides `tpu` in the settings."
)
@front_end_options
@type_option
@max_size_option
@click.pass_context
def command(
    ctx: click.Context,
    files: tuple[str, ...],
    against: str | None,
    against_checkpoint: str | None,
    step: int | None,
    checkpoint_prefix: str | None,
    formats: tuple[str, ...],
    output_files: tuple[str, ...],
    fail_on: frozenset[str],
    config: str | None,
    isolated: bool,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    documents_only: bool,
    show_files: bool,
    tpu: str | None,
    front_end_options: FrontEndOptions,
    message_type: str | None,
    max_bytes: int,
) -> None:
    """Say what a config change does to a checkpoint written under the old config.

    Compares OLD and NEW (configs or specs, any encoding; specs are compiled first; or two
    Keras-RS models: what loading OLD's saved weights into NEW does), or with
    --against each config under the paths with its version at a git revision. Each change is a
    restore-error, silent-reinit, orphaned-state, training-change, topology-change, cosmetic,
    unsaved-state or unverified-layout (`tpuemb rules`, docs/diff.md); a
    `# tpuemb: ignore[KIND] reason` comment in the new file, or a [[suppress]] entry,
    acknowledges an intended one.
    Exit 0: nothing --fail-on names; 1: something it names; 2: an input or the revision could
    not be read.
    """
    if against_checkpoint is not None and not against_checkpoint.strip():
        raise click.UsageError("--against-checkpoint names no checkpoint")
    if against is not None and against_checkpoint is not None:
        raise click.UsageError("--against and --against-checkpoint contradict each other")
    if against_checkpoint is not None:
        if len(files) != 1:
            raise click.UsageError(
                "--against-checkpoint CKPT takes one file (a config, a spec, a stacked layout)"
            )
    elif checkpoint_prefix is not None:
        raise click.UsageError("--checkpoint-prefix goes with --against-checkpoint")
    elif step is not None:
        raise click.UsageError("--step goes with --against-checkpoint")
    elif against is None and len(files) != 2:
        raise click.UsageError(
            "give two files (OLD NEW), --against REF [PATH...], or --against-checkpoint CKPT FILE"
        )
    if config and isolated:
        raise click.UsageError("--config and --isolated contradict each other")
    if files.count("-") > 1:
        raise click.UsageError("stdin (-) can be read once: name one side as a file")
    outputs = pair_outputs(ctx, formats, output_files)
    refuse_inputs(outputs, files)
    if against_checkpoint is not None:
        _refuse_inside(outputs, against_checkpoint)
    options = DiffOptions(
        files,
        against,
        outputs,
        fail_on,
        max_bytes,
        documents_only,
        config,
        isolated,
        list(select) if select else None,
        list(extend_select),
        list(ignore),
        color(sys.stdout),
        show_files,
        message_type,
        against_checkpoint,
        checkpoint_prefix,
        step,
        tpu,
        front_end_options,
    )
    run(execute, options, Streams.standard())
