"""The options that choose a run's settings (``--config``, ``--isolated``, ``--select``,
``--extend-select``, ``--ignore``), shared by ``check`` and ``diff``, and the workspace they
open."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tpuemb_cli.cli.common import StatsOptions, Streams, error

if TYPE_CHECKING:
    from tpuemb_cli.workspace import Workspace

F = TypeVar("F", bound=Callable[..., Any])


def settings_options(rules: str) -> Callable[[F], F]:
    """The settings options; ``rules`` names what the rules are in the help (``rules``,
    ``kinds of change``)."""

    def decorate(function: F) -> F:
        for option in reversed(
            (
                click.option(
                    "--config", "config", metavar="PATH", help="Use this configuration file only."
                ),
                click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
                click.option(
                    "--select",
                    "select",
                    multiple=True,
                    metavar="RULE",
                    help=f"Report only these {rules} (codes, names or prefixes); overrides "
                    "`select`.",
                ),
                click.option(
                    "--extend-select",
                    "extend_select",
                    multiple=True,
                    metavar="RULE",
                    help=f"Report these {rules} too.",
                ),
                click.option(
                    "--ignore",
                    "ignore",
                    multiple=True,
                    metavar="RULE",
                    help=f"Do not report these {rules}.",
                ),
            )
        ):
            function = option(function)
        return function

    return decorate


def open_workspace(
    streams: Streams,
    config: str | None,
    isolated: bool,
    select: Sequence[str] | None,
    extend_select: Sequence[str],
    ignore: Sequence[str],
    tpu: str | None = None,
    command: str = "check",
    front_end_options: tuple[tuple[str, str], ...] = (),
    stats: StatsOptions | None = None,
) -> Workspace | None:
    """The workspace of a run with these options; None, after saying why, when a selector names
    no rule or the configuration cannot be used (exit 2)."""
    from tpuemb_cli.engine.selectors import unknown_rule
    from tpuemb_cli.engine.settings import Selection, SettingsError
    from tpuemb_cli.workspace import Workspace

    selection = Selection(
        tuple(select) if select is not None else None,
        tuple(extend_select),
        tuple(ignore),
        tpu,
        front_end_options,
        *(stats or StatsOptions()),
    )
    unknown = selection.unknown()
    if unknown is not None:
        error(streams, unknown_rule(unknown))
        return None
    if config:
        from pathlib import Path  # only for --config: a run that finds its settings needs none

        path: Path | None = Path(config)
    else:
        path = None
    try:
        return Workspace(path, isolated, selection, command=command)
    except SettingsError as problem:
        error(streams, str(problem))
        return None
