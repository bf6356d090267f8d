"""The ``tpuemb`` command line: parses options into an options object and calls ``run``.

No logic lives here beyond option parsing; see ``tpuemb_cli/run.py``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from tpuemb_cli import __version__, inputs, run
from tpuemb_cli.load.formats import Format

_TYPES = (
    "TPUEmbeddingConfiguration",
    "OptimizationParameters",
    "EmbeddingSpec",
    "GraphDef",
    "SavedModel",
)


def _message_type(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from tpuemb_cli import schema

    try:
        schema.resolve(value)
    except KeyError as error:
        raise click.BadParameter(str(error.args[0])) from None
    return value


def _color(stream: Any) -> bool:
    return bool(stream.isatty()) and "NO_COLOR" not in os.environ


def _finish(code: int) -> None:
    sys.exit(code)


def _guarded(function: Any, *args: Any) -> int:
    """Runs a command; an unexpected exception is an internal error (exit 2), not a traceback."""
    try:
        code: int = function(*args)
        return code
    except KeyboardInterrupt:
        click.echo("tpuemb: interrupted", err=True)
        return run.EXIT_ERROR
    except BrokenPipeError:
        return run.EXIT_ERROR
    except Exception as error:  # the boundary: nothing escapes as a traceback
        if os.environ.get("TPUEMB_DEBUG"):
            import traceback

            traceback.print_exc()
        click.echo(
            f"tpuemb: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in tpuemb; set TPUEMB_DEBUG=1 for the traceback and report it.",
            err=True,
        )
        return run.EXIT_ERROR


type_option = click.option(
    "--type",
    "message_type",
    metavar="TYPE",
    callback=_message_type,
    help=f"Message type of the inputs: {', '.join(_TYPES)} (default: the text format's "
    "'# proto-message:' header, else detected: YAML is a spec, a graph looks like one, else "
    "TPUEmbeddingConfiguration).",
)
max_size_option = click.option(
    "--max-file-size",
    "max_bytes",
    type=click.IntRange(min=1),
    default=inputs.DEFAULT_MAX_BYTES,
    show_default=True,
    help="Refuse inputs larger than this many bytes, before reading them.",
)
stdin_option = click.option(
    "--stdin-filename",
    metavar="PATH",
    help="The name to report (and detect the format by) for input read from '-'.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tpuemb")
def main() -> None:
    """Lint TensorFlow TPU embedding configurations before they reach a TPU."""


class _CheckCommand(click.Command):
    """Keeps the order of --format and --output-file, so that each file pairs with its format."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        parser = self.make_parser(ctx)
        try:
            _, _, order = parser.parse_args(args=list(args))
        except click.UsageError:
            order = []
        ctx.meta["tpuemb.order"] = [param.name for param in order]
        return super().parse_args(ctx, args)


def _outputs(
    ctx: click.Context, formats: tuple[str, ...], files: tuple[str, ...]
) -> list[run.Output]:
    """Pairs each --output-file with the --format just before it; the rest go to stdout."""
    order = [n for n in ctx.meta.get("tpuemb.order", []) if n in ("formats", "output_files")]
    default = os.environ.get("TPUEMB_FORMAT") or (
        "github"
        if os.environ.get("GITHUB_ACTIONS") == "true"
        else "full"
        if sys.stdout.isatty()
        else "concise"
    )
    if default not in FORMAT_NAMES:
        raise click.BadParameter(
            f"TPUEMB_FORMAT={default!r} is not a format", param_hint="--format"
        )
    pairs: list[list[str | None]] = []
    format_iter, file_iter = iter(formats), iter(files)
    for name in order:
        if name == "formats":
            pairs.append([next(format_iter), None])
        else:
            file = next(file_iter)
            if pairs and pairs[-1][1] is None:
                pairs[-1][1] = file
            else:
                pairs.append([default, file])
    if not pairs:
        pairs.append([default, None])
    outputs = [run.Output(str(fmt), path) for fmt, path in pairs]
    if sum(1 for o in outputs if o.path is None) > 1:
        raise click.BadParameter(
            "only one format can go to stdout; give the others an --output-file",
            param_hint="--format",
        )
    return outputs


FORMAT_NAMES = ["full", "concise", "json", "json-lines", "sarif", "github", "text"]


@main.command(cls=_CheckCommand)
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--format",
    "formats",
    multiple=True,
    type=click.Choice(FORMAT_NAMES),
    help="Output format; repeat with --output-file for several reports. Default: $TPUEMB_FORMAT, "
    "github on GitHub Actions, full on a terminal, else concise.",
)
@click.option(
    "--output-file",
    "output_files",
    multiple=True,
    metavar="PATH",
    help="Write the report of the --format before it to PATH (atomically).",
)
@type_option
@stdin_option
@max_size_option
@click.option("--config", "config", metavar="PATH", help="Use this configuration file only.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option(
    "--select",
    "select",
    multiple=True,
    metavar="RULE",
    help="Check only these rules (codes, names or prefixes); overrides `select`.",
)
@click.option(
    "--extend-select", "extend_select", multiple=True, metavar="RULE", help="Check these rules too."
)
@click.option("--ignore", "ignore", multiple=True, metavar="RULE", help="Do not check these rules.")
@click.option(
    "--fail-level",
    type=click.Choice(["error", "warning", "info"]),
    help="Exit 1 when a finding is at least this severe (default: error).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--fix", is_flag=True, help="Apply safe fixes to the files.")
@click.option("--unsafe-fixes", is_flag=True, help="Apply unsafe fixes too (with --fix or --diff).")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option(
    "--add-suppressions",
    is_flag=True,
    help="Suppress every current finding (a baseline for adopting tpuemb).",
)
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule.")
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
def check(
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
    fail_level: str | None,
    exit_zero: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    add_suppressions: bool,
    statistics: bool,
    spec: str | None,
    jobs: int,
) -> None:
    """Lint configs, specs and graphs (.pbtxt .textproto .txtpb .prototxt .json .pb .binpb .yaml
    .yml), directories of them (a SavedModel's too), or - for stdin.

    Exit code 0: no finding at the fail level; 1: at least one (with --diff: something to fix);
    2: usage error, bad configuration or unreadable input.
    """
    if config and isolated:
        raise click.UsageError("--config and --isolated contradict each other")
    options = run.CheckOptions(
        paths=list(paths),
        outputs=_outputs(ctx, formats, output_files),
        message_type=message_type,
        stdin_filename=stdin_filename,
        max_bytes=max_bytes,
        color=_color(sys.stdout),
        config=config,
        isolated=isolated,
        select=list(select) if select else None,
        extend_select=list(extend_select),
        ignore=list(ignore),
        fail_level=fail_level,
        exit_zero=exit_zero,
        fix=fix or (unsafe_fixes and not diff),
        unsafe_fixes=unsafe_fixes,
        diff=diff,
        add_suppressions=add_suppressions,
        statistics=statistics,
        spec=spec,
        jobs=jobs,
    )
    _finish(_guarded(run.check, options, run.Streams.standard()))


@main.command()
@click.argument("path")
@click.option(
    "--to",
    "to",
    type=click.Choice([f.value for f in Format]),
    required=True,
    help="Output format.",
)
@click.option("-o", "--output", metavar="OUT", help="Write here (atomically) instead of stdout.")
@type_option
@stdin_option
@max_size_option
def convert(
    path: str,
    to: str,
    output: str | None,
    message_type: str | None,
    stdin_filename: str | None,
    max_bytes: int,
) -> None:
    """Convert a config between text format, JSON and binary, losslessly."""
    options = run.ConvertOptions(
        path=path,
        to=Format(to),
        output=output,
        message_type=message_type,
        max_bytes=max_bytes,
        stdin_filename=stdin_filename,
    )
    _finish(_guarded(run.convert, options, run.Streams.standard()))


@main.command("compile")
@click.argument("spec")
@click.option("-o", "--output", metavar="OUT", help="Write here (atomically) instead of stdout.")
@click.option(
    "--to",
    "to",
    type=click.Choice([f.value for f in Format if f is not Format.YAML]),
    default="text",
    show_default=True,
    help="Output format.",
)
@max_size_option
def compile_command(spec: str, output: str | None, to: str, max_bytes: int) -> None:
    """Compile an embedding spec to the TPUEmbeddingConfiguration TensorFlow would build.

    The spec is linted first; a spec with errors is not compiled (exit 1).
    """
    options = run.CompileOptions(spec, Format(to), output, max_bytes)
    _finish(_guarded(run.compile_command, options, run.Streams.standard()))


@main.command("explain")
@click.argument("path")
@type_option
@max_size_option
def explain_command(path: str, message_type: str | None, max_bytes: int) -> None:
    """Show what TensorFlow will do with each table of a spec or config, at a glance."""
    _finish(_guarded(run.explain, path, message_type, max_bytes, run.Streams.standard()))


@main.command("rules")
def rules_command() -> None:
    """List every rule: code, name, default severity and what it checks."""
    from tpuemb_cli.rules import all_rules

    rules = all_rules()
    width = max(len(rule.name) for rule in rules)
    click.echo(f"{'CODE':<6} {'NAME':<{width}} {'SEVERITY':<8} {'FIX':<6} SUMMARY")
    for rule in rules:
        click.echo(
            f"{rule.code:<6} {rule.name:<{width}} {rule.severity!s:<8} {rule.fixable:<6} "
            f"{rule.summary}"
        )


@main.command("rule")
@click.argument("key")
def rule_command(key: str) -> None:
    """Print the documentation of one rule, by code (TE101) or name (negative-dynamic-tag)."""
    from tpuemb_cli.rules import find, load

    entry = find(key)
    if entry is None:
        raise click.BadParameter(f"no rule {key!r}; `tpuemb rules` lists them", param_hint="KEY")
    rule = load(entry.code)
    click.echo(f"# {rule.code} {rule.name} ({rule.severity})\n")
    click.echo(rule.doc.strip())
