"""What every command shares: exit codes, the standard streams, reading one input, writing one
output, the options several commands take, and the boundary that turns a crash into exit 2."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import click

from tpuemb_cli.cli import inputs
from tpuemb_cli.formatters.style import printable

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.workspace import Linted
from tpuemb_cli.model.records import Record

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class Streams(Record):
    out: TextIO
    err: TextIO

    @classmethod
    def standard(cls) -> Streams:
        return cls(sys.stdout, sys.stderr)


def error(streams: Streams, message: str) -> None:
    """One line on stderr. Messages hold file names and configuration values as the user wrote
    them: a newline or an escape sequence in one is shown escaped, as human output shows it,
    and cannot forge another line or repaint the terminal."""
    streams.err.write(f"tpuemb: error: {printable(message)}\n")


def note(streams: Streams, message: str) -> None:
    """One line on stderr, escaped as ``error`` is."""
    streams.err.write(f"tpuemb: {printable(message)}\n")


def why(problem: OSError) -> str:
    """An OS error as a message says it: "permission denied", "no such file or directory"."""
    reason = problem.strerror or str(problem)
    return reason[:1].lower() + reason[1:]


def linted_document(linted: Linted, streams: Streams) -> Document | None:
    """The document a command that needs one document (``compile``, ``explain``) linted; None,
    after saying why, when its configuration cannot be used or tpuemb failed on it."""
    if linted.error is not None:
        error(streams, linted.error)
        return None
    if linted.document is None:  # tpuemb failed on it: its internal-error finding says how
        error(streams, f"{linted.name}: {linted.findings[0].message}")
    return linted.document


def read_input(
    path: str, max_bytes: int, streams: Streams, stdin_filename: str | None = None
) -> tuple[inputs.Input, bytes] | None:
    """The one input ``path`` names and its bytes; None (after saying why) when it cannot be
    read."""
    item = next(iter(inputs.expand([path], stdin_filename)))
    if isinstance(item, inputs.InputError):
        error(streams, str(item))
        return None
    if item.walked:
        # Not the first file found in it: `explain examples/` would explain whichever sorts first.
        error(streams, f"{path}: is a directory; name one file in it")
        return None
    assert not item.skip  # only a folder is skipped unread (walked, above)
    try:
        return item, inputs.read(item, max_bytes)
    except inputs.InputError as problem:
        error(streams, str(problem))
        return None


def write_output(output: bytes, path: str | None, streams: Streams, binary: bool = False) -> int:
    """Writes a converted or compiled message to ``path`` (atomically), or to stdout; a
    ``binary`` message never to a terminal (as gzip refuses: raw bytes would garble it, and
    could drive it), exit 2 with what to do instead."""
    if path is None or path == "-":
        if binary and _is_terminal(streams.out):
            error(streams, "binary output is not written to a terminal: give -o FILE, or redirect")
            return EXIT_ERROR
        streams.out.flush()
        binary_out = getattr(streams.out, "buffer", None)
        if binary_out is not None:
            binary_out.write(output)
            binary_out.flush()
        else:
            streams.out.write(output.decode("utf-8", errors="surrogateescape"))
        return EXIT_OK
    from pathlib import Path

    from tpuemb_cli.fix.atomic import write_atomic

    try:
        write_atomic(Path(path), output)
    except OSError as problem:
        error(streams, f"{path}: cannot write: {why(problem)}")
        return EXIT_ERROR
    return EXIT_OK


def named_input(path: str, inputs: Sequence[str], folders: bool = False) -> str | None:
    """The input of ``inputs`` that ``path`` is (the same file, through any name or link), so
    that an output never replaces what the user asked to have read; with ``folders``, a folder
    named as an input counts too. None when it is none of them."""
    from pathlib import Path  # only for an output file: `check` of a file needs no Path

    for name in inputs:
        if name == "-" or not (Path(name).is_file() or (folders and Path(name).is_dir())):
            continue
        try:
            same = Path(path).samefile(name)
        except OSError:
            same = False
        if same:
            return name
    return None


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no such method, or closed
        return False


def color(stream: Any) -> bool:
    return bool(stream.isatty()) and "NO_COLOR" not in os.environ


def run(function: Any, *args: Any) -> None:
    """Runs a command and exits with its code; an unexpected exception is an internal error
    (exit 2), not a traceback."""
    sys.exit(_guarded(function, *args))


def _guarded(function: Any, *args: Any) -> int:
    try:
        code: int = function(*args)
        return code
    except KeyboardInterrupt:
        click.echo("tpuemb: interrupted", err=True)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as problem:  # the boundary: nothing escapes as a traceback
        if os.environ.get("TPUEMB_DEBUG"):
            import traceback

            traceback.print_exc()
        click.echo(
            f"tpuemb: internal error: {type(problem).__name__}: {problem}\n"
            "This is a bug in tpuemb; set TPUEMB_DEBUG=1 for the traceback and report it.",
            err=True,
        )
        return EXIT_ERROR


def _message_type(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from tpuemb_cli.model import schema

    try:
        schema.resolve(value)
    except KeyError as problem:
        raise click.BadParameter(str(problem.args[0])) from None
    return value


def _type_help() -> str:
    from tpuemb_cli.model.schema import TYPES

    return (
        f"Message type of the inputs: {', '.join(row.name for row in TYPES)} (default: the text "
        "format's '# proto-message:' header, else detected: YAML is a spec, a graph looks like "
        "one, else TPUEmbeddingConfiguration)."
    )


type_option = click.option(
    "--type", "message_type", metavar="TYPE", callback=_message_type, help=_type_help()
)


def _max_bytes(ctx: click.Context, param: click.Parameter, value: int) -> int:
    """The limit holds for what an archive's members take decompressed too (``.keras``)."""
    from tpuemb_cli.load.limits import set_max_member_bytes

    set_max_member_bytes(value)
    return value


max_size_option = click.option(
    "--max-file-size",
    "max_bytes",
    type=click.IntRange(min=1),
    default=inputs.DEFAULT_MAX_BYTES,
    show_default=True,
    callback=_max_bytes,
    help="Refuse inputs larger than this many bytes, before reading them (and a .keras "
    "archive's config.json larger than this decompressed).",
)
stdin_option = click.option(
    "--stdin-filename",
    metavar="PATH",
    help="The name to report (and detect the format by) for input read from '-'.",
)


def _tpu(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A chip or an accelerator type as tpuemb spells it (``v5p``, ``v5p-128``); an unknown one
    is a usage error (exit 2)."""
    if value is None:
        return None
    if "," in value:
        raise click.BadParameter(
            f"{value!r}: one TPU here; a list (which of them it fits) is for `tpuemb explain "
            "--memory --tpu`"
        )
    from tpuemb_cli.model.accelerators import UnknownTpu, parse

    try:
        return parse(value).name
    except UnknownTpu as error:
        raise click.BadParameter(str(error)) from None


F = TypeVar("F", bound=Callable[..., Any])

# What a command receives of the front-ends' options given on its command line: (name, value).
FrontEndOptions = tuple[tuple[str, str], ...]


def front_end_options(function: F) -> F:
    """``--<name>`` for each front-end's option (``frontends.Option``: `--keras-backend`), each
    overriding the settings' key of that name; the command receives those given as
    ``front_end_options`` (name, value), in the order the front-ends declare them."""
    from tpuemb_cli.frontends import options

    declared = options()

    @functools.wraps(function)
    def command(*args: Any, **kwargs: Any) -> Any:
        values = [(option.name, kwargs.pop(option.key)) for option in declared]
        given = tuple((name, value) for name, value in values if value is not None)
        return function(*args, front_end_options=given, **kwargs)

    for option in reversed(declared):
        command = click.option(
            f"--{option.name}",
            option.key,
            type=click.Choice(list(option.choices)),
            help=f"{option.help} Overrides `{option.name}` in the settings; default: "
            f"{option.default}.",
        )(command)
    return command  # type: ignore[return-value]


def tpu_option_saying(help: str) -> Callable[[F], F]:
    """``--tpu``, a chip or an accelerator type checked as ``--tpu`` is, with a command's own
    ``help``."""
    return click.option("--tpu", metavar="TPU", callback=_tpu, help=help)


tpu_option = tpu_option_saying(
    "The TPU the configs run on: a chip (v2, v3, v4, v5e, v5p, v6e, tpu7x) or an "
    "accelerator type (v4-32, v5p-128, v5litepod-16, v6e-256): checks the tables' memory "
    "against its HBM, and a slice's cores against the config's. Overrides `tpu` in the "
    "settings and a spec's accelerator."
)


class StatsOptions(Record):
    """``--stats`` (read: an FdoReading, and as named) and ``--stats-headroom``."""

    reading: Any = None
    path: str = ""
    headroom: float | None = None


def _stats(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """The statistics ``--stats`` names, read; an unreadable one is a usage error (exit 2)."""
    if value is None:
        return None
    from pathlib import Path

    from tpuemb_cli.load.fdo import FdoError, read_fdo_stats

    try:
        return value, read_fdo_stats(Path(value))
    except FdoError as error:
        raise click.BadParameter(str(error)) from None


def _headroom(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    from tpuemb_cli.engine.settings import check_headroom

    if value is None:
        return None
    if check_headroom(value) is None:
        raise click.BadParameter(
            f"{value:g} is no headroom: a number from 1 to 1000 (1.5: 50% above)"
        )
    return value


def stats_options(function: F) -> F:
    """``--stats PATH`` and ``--stats-headroom X``, overriding the settings' ``stats`` and
    ``stats-headroom``; the command receives them as ``stats`` (StatsOptions)."""

    @functools.wraps(function)
    def command(*args: Any, **kwargs: Any) -> Any:
        given, headroom = kwargs.pop("stats_path"), kwargs.pop("stats_headroom")
        path, reading = given if given is not None else ("", None)
        return function(*args, stats=StatsOptions(reading, path, headroom), **kwargs)

    command = click.option(
        "--stats-headroom",
        "stats_headroom",
        type=float,
        metavar="X",
        callback=_headroom,
        help="How far above the measured maxima a limit may sit, and what --fix raises a limit "
        "to: X times the maximum (default 1.5). Overrides `stats-headroom` in the settings.",
    )(command)
    command = click.option(
        "--stats",
        "stats_path",
        metavar="PATH",
        callback=_stats,
        help="Statistics measured on the input (a folder of FDO files, jax-tpu-embedding's or "
        "torchrec's, or one; `tpuemb stats -o`): checks each stack's limits against them. "
        "Overrides `stats` in the settings.",
    )(command)
    return command  # type: ignore[return-value]
