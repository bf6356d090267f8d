"""The ``tpuemb`` click group: one command per module of this package, listed in COMMANDS.

To add a command: write its module (a click command and the function that carries it out) and
add its row to COMMANDS. A command's module is imported only when that command runs (or when
``--help`` lists them all), so ``tpuemb check`` pays nothing for ``convert`` or ``explain``.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from tpuemb_cli import __version__

# name -> (module, attribute of its click command); `--help` lists them sorted, as click does.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("tpuemb_cli.cli.check", "command"),
    "convert": ("tpuemb_cli.cli.convert", "command"),
    "diff": ("tpuemb_cli.cli.diff", "command"),
    "compile": ("tpuemb_cli.cli.compile", "command"),
    "explain": ("tpuemb_cli.cli.explain", "command"),
    "rules": ("tpuemb_cli.cli.rules", "list_command"),
    "rule": ("tpuemb_cli.cli.rules", "show_command"),
    "server": ("tpuemb_cli.cli.server", "command"),
    "stats": ("tpuemb_cli.cli.stats", "command"),
}


# click makes its --help and --version options' text with gettext when a command runs, and
# gettext imports `locale` and looks for translations: 3-4M instructions of a one-file check's
# start-up (bench/startup.py), for messages tpuemb shows in English only. Both options are made
# here as click makes them, with their text as is.
_HELP = "Show this message and exit."


def _show_help(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(ctx.get_help(), color=ctx.color)
        ctx.exit()


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"tpuemb, version {__version__}", color=ctx.color)
        ctx.exit()


def help_option(command: click.Command, ctx: click.Context) -> click.Option | None:
    """``command``'s help option, as click's ``Command.get_help_option`` makes it (once, for
    ``iter_params_for_processing`` compares options by identity), without gettext."""
    names = command.get_help_option_names(ctx)
    if not names or not command.add_help_option:
        return None
    made: click.Option | None = command.__dict__.get("_plain_help_option")
    if made is None:
        # Stored under a name no parameter of ours has, as click 8.5 stores its own.
        made = click.Option(
            [*names, "_tpuemb_help"],
            is_flag=True,
            is_eager=True,
            expose_value=False,
            callback=_show_help,
            help=_HELP,
        )
        command.__dict__["_plain_help_option"] = made
    return made


class Command(click.Command):
    """A ``tpuemb`` command: click's, with its help option made without gettext."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        return help_option(self, ctx)


class _Commands(click.Group):
    """A group whose commands are imported when asked for."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        return help_option(self, ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        row = COMMANDS.get(cmd_name)
        if row is None:
            return super().get_command(ctx, cmd_name)
        command: click.Command = getattr(importlib.import_module(row[0]), row[1])
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's, with the command a mistyped name most likely means (as click does for a
        mistyped option): ``No such command 'chek'. Did you mean 'check'?``."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            from tpuemb_cli.model.nearest import nearest

            meant = nearest(args[0], self.list_commands(ctx)) if args else None
            if meant is None or args[0].startswith("-"):
                raise
            raise click.UsageError(
                f"No such command '{args[0]}'. Did you mean '{meant}'?", ctx
            ) from None

    # click's own usage errors quote what was typed (an extra argument, a command's name, a
    # callback's message naming a value): escaped as ``tpuemb: error:`` lines are, so that a file
    # name cannot forge a line or colour the terminal there either (issue 36, point 11).
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.ClickException as error:
            raise _escaped(error) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as error:
            raise _escaped(error) from None


def _escaped(error: click.ClickException) -> click.ClickException:
    from tpuemb_cli.model.words import printable

    # click types `message` Final, but it is a plain attribute that `show` reads: rewritten in
    # place, the exception keeps its class, context and exit code.
    setattr(error, "message", printable(error.message))  # noqa: B010
    return error


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=_show_version,
    help="Show the version and exit.",
)
def main() -> None:
    """Lint TensorFlow TPU embedding configurations before they reach a TPU."""
