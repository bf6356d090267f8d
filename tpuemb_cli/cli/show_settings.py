"""``tpuemb check --show-settings``: the settings that govern each input, as ruff's
``--show-settings`` shows them -- which configuration file was found (or none), and every key
resolved: the file's values with the command line's merged in. Keys are written as the
configuration file writes them, values as TOML, so a line can be copied into a file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tpuemb_cli.cli.common import EXIT_ERROR, EXIT_OK, Streams, error
from tpuemb_cli.engine.settings import Settings, SettingsError
from tpuemb_cli.frontends import options as front_end_options
from tpuemb_cli.model.words import plural, printable
from tpuemb_cli.workspace import Workspace


def _toml(value: object) -> str:
    """A value as TOML writes it (strings and lists of strings; JSON's quoting is TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def _stats(reading: Any) -> str:
    """``3 stacks from 2 files (jax-npz)``: what the statistics read hold."""
    return (
        f"{plural(len(reading.stacks), 'stack')} from {plural(len(reading.files), 'file')} "
        f"({reading.source})"
    )


def describe(settings: Settings) -> list[str]:
    """The resolved settings, one key a line."""
    found = f"{settings.path}" if settings.path is not None else "none (the defaults)"
    severity = ", ".join(
        f"{code} = {_toml(str(level))}" for code, level in settings.severity.items()
    )
    ignores = ", ".join(
        f"{_toml(glob)} = {_toml(rules)}" for glob, rules in settings.per_file_ignores
    )
    tpu = _toml(settings.tpu) if settings.tpu else "none"
    return [
        f"configuration: {found}",
        f"select = {_toml(settings.select)}",
        f"extend-select = {_toml(settings.extend_select)}",
        f"ignore = {_toml(settings.ignore)}",
        f"  (enabled: {plural(len(settings.enabled()), 'rule')})",
        f"severity = {{{severity}}}",
        f"per-file-ignores = {{{ignores}}}",
        f"exclude = {_toml(settings.exclude)}",
        f"fail-level = {_toml(str(settings.fail_level))}",
        f"require-reason = {_toml(settings.require_reason)}",
        f"suppress = [...]  ({plural(len(settings.suppress), 'entry', 'entries')})",
        f"tpu = {tpu}{' (--tpu)' if settings.tpu_forced else ''}",
        f"stats = {_toml(settings.stats_path) if settings.stats is not None else 'none'}"
        + (f"  ({_stats(settings.stats)})" if settings.stats is not None else ""),
        f"stats-headroom = {settings.stats_headroom:g}",
        *(
            f"{option.name} = {_toml(settings.option(option.name))}"
            for option in front_end_options()
        ),
    ]


def show(workspace: Workspace, paths: Sequence[str], streams: Streams) -> int:
    """Prints the settings of each path (a folder's: those its files are checked with, unless
    a configuration nearer to a file says otherwise); exit 2 when one cannot be read."""
    status = EXIT_OK
    for index, name in enumerate(paths):
        # A folder's settings are those of a file directly in it (its own configuration file
        # counts); a file's are found from its folder up.
        given = None if name == "-" else Path(name)
        probe = given / "_" if given is not None and given.is_dir() else given
        try:
            settings = workspace.settings_for(None if probe is None else str(probe))
        except (SettingsError, OSError) as problem:
            error(streams, str(problem))
            status = EXIT_ERROR
            continue
        shown = "stdin" if name == "-" else name
        lines = [f"Settings for {shown}:", *(f"  {line}" for line in describe(settings))]
        shown_lines = "".join(printable(line) + "\n" for line in lines)
        streams.out.write(("\n" if index else "") + shown_lines)
    return status
