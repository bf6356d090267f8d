"""Where ``check``'s reports go: each ``--output-file`` paired with the ``--format`` before it,
the rest to stdout; writing them; and ``--statistics``."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from tpuemb_cli import formatters
from tpuemb_cli.cli.common import Streams, error, named_input, why
from tpuemb_cli.cli.main import Command
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.model.records import Record


class Output(Record):
    format: str
    path: str | None  # None: stdout


class OrderedCommand(Command):
    """Keeps the order of --format and --output-file, so that each file pairs with its format."""

    def make_parser(self, ctx: click.Context) -> Any:
        # The order is what click's parser returns besides the values: kept from the parse
        # click's ``parse_args`` makes (parsing a second time for it cost 1M instructions, a
        # third of what parsing a `check`'s options costs).
        parser = super().make_parser(ctx)
        parse = parser.parse_args

        def parse_in_order(args: list[str]) -> Any:
            values, rest, order = parse(args=args)
            ctx.meta["tpuemb.order"] = [param.name for param in order]
            return values, rest, order

        parser.parse_args = parse_in_order  # type: ignore[method-assign]
        return parser


F = TypeVar("F", bound=Callable[..., Any])


def report_options(function: F) -> F:
    """``--format`` (any registered format) and ``--output-file``, paired in order (the command
    must be an ``OrderedCommand``): what ``check`` and ``diff`` write where."""
    from tpuemb_cli.cli import choices

    function = click.option(
        "--output-file",
        "output_files",
        multiple=True,
        metavar="PATH",
        help="Write the report of the --format before it to PATH (atomically), e.g. SARIF for "
        "code scanning.",
    )(function)
    return click.option(
        "--format",
        "--output-format",  # ruff's current name for it
        "formats",
        multiple=True,
        type=choices.formats(),
        help="Output format; repeat with --output-file for several reports. Default: "
        "$TPUEMB_FORMAT, github on GitHub Actions, full on a terminal, else concise.",
    )(function)


def default_format() -> str:
    """The format when none is given: TPUEMB_FORMAT, else github in GitHub Actions, full on a
    terminal, concise otherwise."""
    default = os.environ.get("TPUEMB_FORMAT") or (
        "github"
        if os.environ.get("GITHUB_ACTIONS") == "true"
        else "full"
        if sys.stdout.isatty()
        else "concise"
    )
    if default not in formatters.names():
        raise click.BadParameter(
            f"TPUEMB_FORMAT={default!r} is not a format", param_hint="--format"
        )
    return default


def pair_outputs(
    ctx: click.Context, formats: tuple[str, ...], files: tuple[str, ...]
) -> list[Output]:
    """Pairs each --output-file with the --format just before it; the rest go to stdout."""
    order = [n for n in ctx.meta.get("tpuemb.order", []) if n in ("formats", "output_files")]
    default = default_format()
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
    outputs = [Output(str(fmt), path) for fmt, path in pairs]
    if sum(1 for o in outputs if o.path is None) > 1:
        raise click.BadParameter(
            "only one format can go to stdout; give the others an --output-file",
            param_hint="--format",
        )
    return outputs


def refuse_inputs(outputs: Sequence[Output], inputs: Sequence[str]) -> None:
    """A usage error when a report would be written over a file named as an input: a config
    the user asked to have read, never replaced by a report."""
    for output in outputs:
        if output.path is not None and named_input(output.path, inputs) is not None:
            raise click.UsageError(
                f"--output-file {output.path} is an input: the report would replace it"
            )


def write_reports(
    report: formatters.Report, outputs: Sequence[Output], color: bool, streams: Streams
) -> bool:
    ok = True
    for output in outputs:
        text = formatters.get(output.format)(report, color and output.path is None)
        if output.path is None:
            streams.out.write(text)
        elif not write_report_file(output.path, text, streams):
            ok = False
    return ok


def write_report_file(path: str, text: str, streams: Streams) -> bool:
    """Writes a report to ``path`` atomically; False (the error said) when it cannot."""
    from pathlib import Path  # with tempfile: paid by report files only

    from tpuemb_cli.fix.atomic import write_atomic

    try:
        write_atomic(Path(path), text.encode("utf-8"))
    except OSError as problem:
        error(streams, f"{path}: cannot write the report: {why(problem)}")
        return False
    return True


def _fix_mark(finding: Finding) -> str:
    """``[*]``: ``--fix`` fixes it (what the summary's "fixable with `--fix`" counts); ``[-]``:
    its fix is unsafe and needs ``--unsafe-fixes`` too; blank: no fix."""
    if finding.autofix is None:
        return "   "
    return "[*]" if finding.autofix.safe else "[-]"


def print_statistics(findings: Sequence[Finding], streams: Streams) -> None:
    counts = Counter((f.rule, f.name, _fix_mark(f)) for f in findings)
    for (code, name, mark), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        streams.out.write(f"{count:>5}  {code}  {mark} {name}\n")
