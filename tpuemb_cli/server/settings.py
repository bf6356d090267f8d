"""The editor's settings for the server, as ruff's server takes them: camelCase keys in the
client's ``initializationOptions`` and in ``workspace/didChangeConfiguration``, read into
``ServerSettings`` and checked -- an unknown key or a bad value is a warning to show the user,
and that key keeps its default; nothing here raises on what a user wrote.

The settings in force are the defaults, then the initialization options over them, then the
last ``didChangeConfiguration`` over those, key by key (``layered``). A client may send either
the settings themselves or them under ``"tpuemb"`` (VS Code and Neovim's ``settings`` table name
the server's section).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tpuemb_cli.model.records import Record

SECTION = "tpuemb"
LOG_LEVELS = ("error", "warn", "info", "debug")  # ruff's names; each shows those before it too
MAX_DEBOUNCE_MS = 60000


class ServerSettings(Record):
    """What the editor set. ``select`` None: the configuration's; ``configuration``: one
    configuration file for every document (``--config``); ``fix_all``: offer the "fix all"
    source action (an editor runs it on save when told to, as with ruff's ``fixAll``)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    tpu: str | None = None
    configuration: str | None = None
    isolated: bool = False
    fix_all: bool = True
    log_level: str = "info"
    debounce_ms: float = 250
    # The front-ends' options (`frontends.Option`), each under its name in camelCase
    # (`kerasBackend`): (name, value) for those set.
    options: tuple[tuple[str, str], ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The settings as the editor spells them (for the debug information)."""
        shown = {
            KEYS[field]: _plain(value)
            for field, value in self._asdict().items()
            if field != "options"
        }
        return shown | {_camel(name): value for name, value in self.options}


def _camel(name: str) -> str:
    """An option's name as an editor's setting: ``keras-backend`` -> ``kerasBackend``."""
    first, *rest = name.split("-")
    return first + "".join(part.capitalize() for part in rest)


def _front_end_options() -> dict[str, Any]:
    """Each front-end option by its editor key."""
    from tpuemb_cli.frontends import options

    return {_camel(option.name): option for option in options()}


# The editor's key of each field.
KEYS = {
    "select": "select",
    "extend_select": "extendSelect",
    "ignore": "ignore",
    "tpu": "tpu",
    "configuration": "configuration",
    "isolated": "isolated",
    "fix_all": "fixAll",
    "log_level": "logLevel",
    "debounce_ms": "debounceMs",
}
FIELDS = {key: field for field, key in KEYS.items()}


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def section_of(options: object) -> Mapping[str, Any]:
    """The server's settings in what a client sent: the object itself, or its ``"tpuemb"``
    member; empty for anything else (``null``, a list)."""
    if not isinstance(options, Mapping):
        return {}
    inner = options.get(SECTION)
    if isinstance(inner, Mapping):
        return inner
    return options


def read(options: Mapping[str, Any]) -> tuple[dict[str, object], list[str]]:
    """The fields ``options`` sets validly, by field name, and a warning for each key that is
    unknown or has a bad value (that key is left out)."""
    values: dict[str, object] = {}
    warnings: list[str] = []
    declared = _front_end_options()
    chosen: dict[str, str] = {}
    for key, raw in options.items():
        option = declared.get(key)
        if option is not None:
            if raw is None:
                continue  # the configuration's (or the default)
            if raw not in option.choices:
                names = ", ".join(option.choices)
                warnings.append(
                    f"setting {key!r}: expected one of {names}, got {_shown(raw)}; it is ignored"
                )
                continue
            chosen[option.name] = raw
            continue
        field = FIELDS.get(key)
        if field is None:
            warnings.append(f"unknown setting {key!r}{_nearest(key)}")
            continue
        problem, value = _check(field, raw)
        if problem is not None:
            warnings.append(f"setting {key!r}: {problem}; it is ignored")
            continue
        values[field] = value
    if chosen:
        values["options"] = tuple(chosen.items())
    return values, warnings


def layered(*layers: Mapping[str, object]) -> ServerSettings:
    """The defaults with each layer's fields over them, in order."""
    fields: dict[str, Any] = {}
    chosen: dict[str, str] = {}
    for layer in layers:
        fields.update(layer)
        chosen.update(dict(layer.get("options", ())))  # type: ignore[call-overload]
    if chosen:
        fields["options"] = tuple(chosen.items())
    return ServerSettings(**fields)


def _nearest(key: str) -> str:
    from tpuemb_cli.model.nearest import did_you_mean, nearest

    known = sorted([*FIELDS, *_front_end_options()])
    close = nearest(key, known)
    if close is not None:
        return did_you_mean(close)
    return f" (known: {', '.join(known)})"


def _check(field: str, raw: object) -> tuple[str | None, object]:
    """Why ``raw`` is no value for ``field`` (None if it is one), and the value."""
    if field in ("select", "extend_select", "ignore"):
        if field == "select" and raw is None:
            return None, None
        if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
            return f"expected a list of rule codes, names or prefixes, got {_shown(raw)}", None
        from tpuemb_cli.engine.selectors import selector_codes, unknown_rule

        for selector in raw:
            if not selector_codes(selector):
                return unknown_rule(selector), None
        return None, tuple(raw)
    if field == "tpu":
        if raw is None:
            return None, None
        if not isinstance(raw, str):
            return f"expected a TPU chip's name, got {_shown(raw)}", None
        from tpuemb_cli.model.accelerators import UnknownTpu, parse

        try:
            return None, parse(raw).name
        except UnknownTpu as error:
            return str(error), None
    if field == "configuration":
        if raw is None:
            return None, None
        if not isinstance(raw, str) or not raw:
            return f"expected a configuration file's path, got {_shown(raw)}", None
        path = Path(raw).expanduser()
        if not path.is_file():
            return f"{raw}: no such file", None
        return None, str(path)
    if field in ("isolated", "fix_all"):
        if not isinstance(raw, bool):
            return f"expected true or false, got {_shown(raw)}", None
        return None, raw
    if field == "log_level":
        if raw not in LOG_LEVELS:
            return f"expected one of {', '.join(LOG_LEVELS)}, got {_shown(raw)}", None
        return None, raw
    # debounce_ms
    if (
        not isinstance(raw, (int, float))
        or isinstance(raw, bool)
        or not 0 <= raw <= MAX_DEBOUNCE_MS
    ):
        return f"expected milliseconds from 0 to {MAX_DEBOUNCE_MS}, got {_shown(raw)}", None
    return None, raw


def _shown(raw: object) -> str:
    import json

    try:
        return json.dumps(raw)
    except (TypeError, ValueError):
        return repr(raw)
