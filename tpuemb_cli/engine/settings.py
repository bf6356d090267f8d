"""Project configuration: ``[tool.tpuemb]`` in ``pyproject.toml``, or a ``.tpuemb.toml``.

For each linted file the nearest configuration above it wins (``.tpuemb.toml`` before
``pyproject.toml`` in one folder; a ``pyproject.toml`` counts only if it has ``[tool.tpuemb]``):
``discovery`` finds it. ``--config PATH`` uses one file for all; ``--isolated`` uses none. Globs
(``per-file-ignores``, ``exclude``, ``suppress.file``) are relative to the configuration's folder.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tpuemb_cli.engine.selectors import expand, glob_matches, selector_codes, unknown_rule
from tpuemb_cli.model.findings import Severity
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    # Imported where a Path is made: a run with no configuration file makes none, and pathlib
    # (with urllib.parse and ipaddress) is a tenth of `tpuemb check`'s start-up.
    from pathlib import Path


def toml_module() -> Any:
    # Imported on first use: a run without configuration files does not pay for a TOML parser.
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli  # pragma: no cover - Python 3.10 only

    return tomli  # pragma: no cover


KEYS = {
    "select",
    "extend-select",
    "ignore",
    "severity",
    "per-file-ignores",
    "exclude",
    "fail-level",
    "require-reason",
    "suppress",
    "tpu",
    "stats",
    "stats-headroom",
}
SUPPRESS_KEYS = {"file", "field", "rules", "reason"}
# How far above the measured maxima a limit may sit (`stats-headroom`): what `--fix` writes, and
# where a limit starts to cost buffers the data never fills. Input varies from batch to batch
# (keras-rs #168); the library's own update_preprocessing_parameters takes 1.0.
DEFAULT_HEADROOM = 1.5


def expand_within(selectors: tuple[str, ...], within: frozenset[str] | None) -> set[str]:
    """The codes ``selectors`` name; with ``within``, of the selectors that name codes of
    ``within`` alone."""
    if within is None:
        return expand(selectors)
    codes: set[str] = set()
    for selector in selectors:
        named = selector_codes(selector)
        if named <= within:
            codes |= named
    return codes


def absolute(path: str | Path) -> Path:
    """Absolute and normalized, without resolving links: a link loop must not stop a run, and a
    link is the user's own spelling of where a file is."""
    from pathlib import Path

    return Path(os.path.normpath(Path(path).absolute()))


class SettingsError(Exception):
    """A configuration that cannot be used: names the file, the line and column, and the key
    (exit code 2)."""


Key = tuple[str | int, ...]


class _KeyError(SettingsError):
    """A wrong key or value, before its place is known: ``tomllib`` gives none, so ``configured``
    looks for it in the text, once there is an error to place."""

    def __init__(self, path: Path, key: Key, message: str) -> None:
        self.path, self.key, self.message = path, key, message
        super().__init__(f"{path}: `{_rendered(key)}`: {message}")

    def placed(self, text: str, table: Key) -> SettingsError:
        """The error, at the key's line and column in ``text``, where the settings sit at
        ``table``. tomlkit does not keep places either; a walk of the text does, and is read only
        here: a run without a configuration error never imports it."""
        from tpuemb_cli.engine.toml_places import key_place

        found = key_place(text, (*table, *self.key))
        place = f"{found[0]}:{found[1]}:" if found is not None else ""
        return SettingsError(f"{self.path}:{place} `{_rendered(self.key)}`: {self.message}")


def _rendered(key: Key) -> str:
    """``suppress[2].rules``, ``severity.TE105``: as the documentation writes keys."""
    return "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" if index else part
        for index, part in enumerate(key)
    )


class Suppression(Record):
    """A ``[[tool.tpuemb.suppress]]`` entry: for JSON and binary files, which have no comments."""

    number: int  # its place in the configuration's list
    file: str
    field: str
    rules: tuple[str, ...]
    reason: str


class Settings(Record):
    path: Path | None = None  # the configuration file; None for the defaults
    select: tuple[str, ...] = ("TE",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = {}
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    fail_level: Severity = Severity.ERROR
    require_reason: bool = True
    suppress: tuple[Suppression, ...] = ()
    tpu: str | None = None  # the chip the configs run on (model.chips), for the memory rules
    tpu_forced: bool = False  # from --tpu: it wins over a spec's topology.accelerator
    # Measured statistics (`stats`, `--stats`): what load/fdo read, read once with the settings
    # so that an unreadable file is the settings' error (exit 2), not every document's.
    stats: Any = None  # an FdoReading
    stats_path: str = ""  # as the user named it
    stats_headroom: float = DEFAULT_HEADROOM
    # The front-ends' options (`frontends.Option`) given a value: name -> value.
    options: Mapping[str, str] = {}

    def option(self, name: str) -> str:
        """The value of the front-end option ``name``: as set, else its default."""
        value = self.options.get(name)
        if value is not None:
            return value
        from tpuemb_cli.frontends import options

        return next(option.default for option in options() if option.name == name)

    @property
    def table_path(self) -> tuple[str, ...]:
        """Where the settings sit in their file: ``[tool.tpuemb]`` of a pyproject.toml, the top
        level of a .tpuemb.toml (or of a file given with --config that is not a pyproject)."""
        if self.path is not None and self.path.name == "pyproject.toml":
            return ("tool", "tpuemb")
        return ()

    @property
    def root(self) -> Path:
        if self.path is not None:
            return self.path.parent
        from pathlib import Path

        return Path.cwd()

    def relative(self, file: str) -> str | None:
        """``file`` relative to the configuration's folder, or None when outside it."""
        try:
            return absolute(file).relative_to(absolute(self.root)).as_posix()
        except ValueError:
            return None

    def excluded(self, file: str) -> bool:
        return any(glob_matches(pattern, file, self) for pattern in self.exclude)

    def ignored_for(self, file: str, within: frozenset[str] | None = None) -> set[str]:
        """Rule codes that ``per-file-ignores`` turns off for ``file``; with ``within``, only
        those of selectors that name codes of ``within`` alone (``diff``'s kinds: a prefix that
        also names `check`'s rules is `check`'s)."""
        codes: set[str] = set()
        for pattern, selectors in self.per_file_ignores:
            if glob_matches(pattern, file, self):
                codes |= expand_within(selectors, within)
        return codes

    def enabled(self) -> frozenset[str]:
        return frozenset((expand(self.select) | expand(self.extend_select)) - expand(self.ignore))


class Selection(Record):
    """The command line's rule selection, merged into every configuration's settings once, as
    they are read (``--select`` replaces a configuration's ``select``; the others add to it)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    tpu: str | None = None  # --tpu, a known chip's name
    # The front-ends' options given on the command line (`--keras-backend`): (name, value).
    options: tuple[tuple[str, str], ...] = ()
    # --stats, read (an FdoReading) and as named; --stats-headroom.
    stats: Any = None
    stats_path: str = ""
    stats_headroom: float | None = None

    def unknown(self) -> str | None:
        """The first selector that names no rule."""
        for selector in (*(self.select or ()), *self.extend_select, *self.ignore):
            if not selector_codes(selector):
                return selector
        return None

    def merged(self, settings: Settings) -> Settings:
        if self == Selection():
            return settings
        merged = settings._replace(
            select=self.select if self.select is not None else settings.select,
            extend_select=settings.extend_select + self.extend_select,
            ignore=settings.ignore + self.ignore,
        )
        if self.tpu is not None:
            merged = merged._replace(tpu=self.tpu, tpu_forced=True)
        if self.options:
            merged = merged._replace(options={**settings.options, **dict(self.options)})
        if self.stats is not None:
            merged = merged._replace(stats=self.stats, stats_path=self.stats_path)
        if self.stats_headroom is not None:
            merged = merged._replace(stats_headroom=self.stats_headroom)
        return merged


# -- reading -----------------------------------------------------------------------------------
def _fail(path: Path, key: Key, message: str) -> SettingsError:
    return _KeyError(path, key, message)


def _unknown_key(key: str, known: set[str]) -> str:
    from tpuemb_cli.model.nearest import did_you_mean, nearest

    close = nearest(key, sorted(known))
    if close is not None:
        return "unknown key" + did_you_mean(close)
    return f"unknown key (known: {', '.join(sorted(known))})"


def _string_list(path: Path, key: Key, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _fail(path, key, "must be a list of strings")
    return tuple(value)


def _selectors(path: Path, key: Key, value: Any) -> tuple[str, ...]:
    selectors = _string_list(path, key, value)
    for selector in selectors:
        if not selector_codes(selector):
            raise _fail(path, key, unknown_rule(selector))
    return selectors


def _severity(path: Path, key: Key, value: Any) -> Severity:
    try:
        return Severity.parse(value) if isinstance(value, str) else Severity.parse(repr(value))
    except ValueError as error:
        raise _fail(path, key, str(error)) from None


def parse(table: Mapping[str, Any], path: Path) -> Settings:
    """Settings from a ``[tool.tpuemb]`` table, or a .tpuemb.toml's top level, from ``path``."""
    from tpuemb_cli.frontends import options

    declared = {option.name: option for option in options()}
    known = KEYS | set(declared)
    unknown = sorted(set(table) - known)
    if unknown:
        raise _fail(path, (unknown[0],), _unknown_key(unknown[0], known))
    values: dict[str, Any] = {"path": path}
    for key, field in (
        ("select", "select"),
        ("extend-select", "extend_select"),
        ("ignore", "ignore"),
    ):
        if key in table:
            values[field] = _selectors(path, (key,), table[key])
    if "severity" in table:
        severities = table["severity"]
        if not isinstance(severities, dict):
            raise _fail(path, ("severity",), "must be a table of rule = level")
        overrides: dict[str, Severity] = {}
        for selector, level in severities.items():
            codes = selector_codes(selector)
            if not codes:
                raise _fail(path, ("severity", selector), unknown_rule(selector))
            for code in codes:
                overrides[code] = _severity(path, ("severity", selector), level)
        values["severity"] = overrides
    if "per-file-ignores" in table:
        entries = table["per-file-ignores"]
        if not isinstance(entries, dict):
            raise _fail(path, ("per-file-ignores",), "must be a table of glob = [rules]")
        values["per_file_ignores"] = tuple(
            (glob, _selectors(path, ("per-file-ignores", glob), rules))
            for glob, rules in entries.items()
        )
    if "exclude" in table:
        values["exclude"] = _string_list(path, ("exclude",), table["exclude"])
    if "fail-level" in table:
        values["fail_level"] = _severity(path, ("fail-level",), table["fail-level"])
    if "require-reason" in table:
        if not isinstance(table["require-reason"], bool):
            raise _fail(path, ("require-reason",), "must be true or false")
        values["require_reason"] = table["require-reason"]
    if "tpu" in table:
        values["tpu"] = _tpu(path, table["tpu"])
    if "stats" in table:
        values["stats_path"], values["stats"] = _stats(path, table["stats"])
    if "stats-headroom" in table:
        values["stats_headroom"] = _headroom(path, table["stats-headroom"])
    chosen = {
        name: _choice(path, option.name, option.choices, table[name])
        for name, option in declared.items()
        if name in table
    }
    if chosen:
        values["options"] = chosen
    if "suppress" in table:
        values["suppress"] = _suppressions(
            path, table["suppress"], values.get("require_reason", True)
        )
    return Settings(**values)


def _stats(path: Path, value: Any) -> tuple[str, Any]:
    """The statistics ``stats`` names (a folder of FDO files, or one), relative to the
    configuration's folder, read: an unreadable one is the configuration's error."""
    if not isinstance(value, str) or not value:
        raise _fail(path, ("stats",), "must be a string: a folder of statistics files, or one")
    from tpuemb_cli.load.fdo import FdoError, read_fdo_stats

    where = path.parent / value
    try:
        return value, read_fdo_stats(where)
    except FdoError as problem:
        raise _fail(path, ("stats",), str(problem)) from None


def check_headroom(value: object) -> float | None:
    """``value`` as a headroom (a number from 1 to 1000), or None when it is none."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 1.0 <= value <= 1000.0 else None


def _headroom(path: Path, value: Any) -> float:
    found = check_headroom(value)
    if found is None:
        raise _fail(path, ("stats-headroom",), "must be a number from 1 to 1000 (1.5: 50% above)")
    return found


def _tpu(path: Path, value: Any) -> str:
    """A chip or an accelerator type, as model.accelerators spells it."""
    from tpuemb_cli.model.accelerators import UnknownTpu, parse

    if not isinstance(value, str):
        raise _fail(path, ("tpu",), 'must be a string naming a TPU, such as "v5p" or "v5p-128"')
    try:
        return parse(value).name
    except UnknownTpu as error:
        raise _fail(path, ("tpu",), str(error)) from None


def _choice(path: Path, name: str, choices: tuple[str, ...], value: Any) -> str:
    """A front-end option's value: one of its ``choices``."""
    if value not in choices:
        names = " or ".join(f'"{choice}"' for choice in choices)
        raise _fail(path, (name,), f"must be {names}")
    return str(value)


def _suppressions(path: Path, entries: Any, require_reason: bool) -> tuple[Suppression, ...]:
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise _fail(path, ("suppress",), "must be an array of tables ([[tool.tpuemb.suppress]])")
    found = []
    for index, entry in enumerate(entries):
        key: Key = ("suppress", index)
        unknown = sorted(set(entry) - SUPPRESS_KEYS)
        if unknown:
            raise _fail(path, (*key, unknown[0]), _unknown_key(unknown[0], SUPPRESS_KEYS))
        for required in ("file", "rules"):
            if required not in entry:
                raise _fail(path, key, f"`{required}` is required")
        reason = entry.get("reason", "")
        if not isinstance(reason, str) or (require_reason and not reason.strip()):
            raise _fail(path, (*key, "reason"), "a reason is required (why is this not a problem?)")
        field = entry.get("field", "*")
        for name, value in (("file", entry["file"]), ("field", field)):
            if not isinstance(value, str):
                raise _fail(path, (*key, name), "must be a string")
        rules = _selectors(path, (*key, "rules"), entry["rules"])
        found.append(Suppression(index, entry["file"], field, rules, reason.strip()))
    return tuple(found)


# Compiled by ``re`` when a configuration file is not TOML, not at start-up.
_AT_LINE = r"\s*\(at line (\d+), column (\d+)\)$"


def _not_toml(path: Path, text: str, error: Exception) -> SettingsError:
    """``path:line:column: not valid TOML: why``: tomllib puts the place at the end of its
    message (or says "at end of document", which is the last line)."""
    message = str(error)
    found = re.search(_AT_LINE, message)
    if found is not None:
        place = f"{found[1]}:{found[2]}"
        message = message[: found.start()]
    else:
        message = message.replace(" (at end of document)", "")
        last = text.rsplit("\n", 1)[-1]
        place = f"{text.count(chr(10)) + 1}:{len(last) + 1}"
    if text.startswith("\ufeff"):
        message += " (the file starts with a byte-order mark: save it without one)"
    return SettingsError(f"{path}:{place}: not valid TOML: {message}")


def _load_toml(path: Path, opened: Path | None = None) -> tuple[dict[str, Any], str]:
    """The TOML document at ``path``, and its text; raises SettingsError naming the file, and
    the line and column of a syntax error. ``opened``: the path to open it by, when ``path``
    (its name in messages) cannot be."""
    toml = toml_module()
    try:
        data = (opened or path).read_bytes()
    except OSError as error:
        raise SettingsError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise SettingsError(
            f"{path}:{line}: not valid TOML: not UTF-8 (byte 0x{data[error.start]:02x})"
        ) from None
    try:
        document: dict[str, Any] = toml.loads(text)
    except toml.TOMLDecodeError as error:
        raise _not_toml(path, text, error) from None
    return document, text


def _tool_table(path: Path, document: dict[str, Any]) -> Any:
    """``[tool.tpuemb]`` of a pyproject.toml, or None when it has none."""
    tool = document.get("tool", {})
    if not isinstance(tool, dict):
        raise _KeyError(path, ("tool",), "must be a table")
    return tool.get("tpuemb")


def read(path: Path, opened: Path | None = None) -> Settings:
    """Settings from a ``.tpuemb.toml`` or a ``pyproject.toml``; raises SettingsError.
    ``opened``: the path to open it by, when ``path`` (its name in messages) cannot be."""
    return configured(path, opened) or Settings(path=path)


def configured(path: Path, opened: Path | None = None) -> Settings | None:
    """``read``, but None for a pyproject.toml without ``[tool.tpuemb]`` (discovery goes on
    upwards). A pyproject.toml that is not valid TOML is an error, not one without the table: it
    may well have one, and ignoring it would drop every setting and suppression in it."""
    document, text = _load_toml(path, opened)
    table_path = Settings(path=path).table_path
    try:
        table = _tool_table(path, document) if table_path else document
        if table is None:
            return None
        if not isinstance(table, dict):
            raise _KeyError(path, table_path, "must be a table")
    except _KeyError as error:
        raise error.placed(text, ()) from None
    try:
        return parse(table, path)
    except _KeyError as error:
        raise error.placed(text, table_path) from None
