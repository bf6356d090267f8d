"""One open document in, its findings out: the path ``tpuemb check`` takes for one file, the
workspace's ``lint_document``.

The configuration that governs a document is found as ``check`` finds it (the nearest
``.tpuemb.toml`` or ``pyproject.toml`` with ``[tool.tpuemb]`` above it), and the document is
loaded and linted with those settings, suppressions included. An editor opens every ``.json``
and ``.yaml`` file, so one that is not a TPU embedding document is skipped quietly (as
``check --documents-only`` skips it), as is a buffer whose name says nothing of its format (an
unsaved ``untitled:`` one); a text-format file (``.pbtxt``, ``.textproto``...) is one by its
name, and gets what ``check`` reports on it when it is no TPU embedding document (TE009). A
binary file or an archive -- an encoding whose row is not ``text`` (``.pb``, ``.binpb``,
``saved_model.pb``, ``.keras``), or a buffer of no known extension whose bytes are binary or a
zip (a checkpoint's ``.index`` and data files) -- is never linted from the editor's text (an
editor shows binary as mangled text): it is left alone, and ``tpuemb check`` reads the file. A
model folder's ``config.json`` is text, and linted from the buffer. A buffer holding a lone
surrogate has no UTF-8 form, so it is not linted, and the document says why (``unencodable``).
Nothing here raises on what a user typed: a bug in tpuemb is an ``internal-error`` finding, as in
``check``.
"""

from __future__ import annotations

import os
import re
import traceback
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from tpuemb_cli.engine import Engine
from tpuemb_cli.engine.settings import Selection, Settings, SettingsError
from tpuemb_cli.load import Document
from tpuemb_cli.load.encodings import detect, for_name
from tpuemb_cli.load.identify import name_says
from tpuemb_cli.load.limits import DEFAULT_MAX_BYTES, has_surrogates
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.workspace import Workspace

CONFIG_FILES = (".tpuemb.toml", "pyproject.toml")
# The statistics files the settings' `stats` reads (read with the settings: a new one must make
# them be read again), as the FDO clients and `tpuemb stats -o` name them.
STATS_FILES = ("fdo_stats_*.npz", "fdo_stats_*.csv")


class Linted(NamedTuple):
    """What linting one version of a document gave.

    ``document`` is None when it was not linted: ``skipped`` or ``error`` says why (an error is
    shown to the user, at ``error_offset`` into the text if it has a place; a skip is not).
    """

    name: str
    text: str
    document: Document | None
    findings: list[Finding]
    engine: Engine | None = None
    skipped: str | None = None
    error: str | None = None
    error_offset: int | None = None


def path_of(uri: str) -> str | None:
    """The file a ``file:`` URI names; None for other schemes (an unsaved buffer)."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    path = unquote(parts.path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///C:/... on Windows
        path = path[1:]
    return path


def name_of(uri: str) -> str:
    """What findings call the document: its path, or the URI of an unsaved buffer."""
    return path_of(uri) or uri


def is_config_file(uri: str) -> bool:
    """Whether ``uri`` is a file the settings are read from: a configuration, or statistics."""
    from fnmatch import fnmatchcase

    path = path_of(uri)
    if path is None:
        return False
    name = path.rsplit("/", 1)[-1]
    return name in CONFIG_FILES or any(fnmatchcase(name, pattern) for pattern in STATS_FILES)


class Linter:
    """Lints open documents through the workspace (``tpuemb check``'s pipeline), with the
    settings that govern each, one engine per configuration.

    Not thread-safe: the server runs every lint on one worker thread.
    """

    def __init__(self) -> None:
        self.workspace = Workspace(report_crash=_log_crash)
        self.lints = 0  # how many documents were linted (the debounce test counts them)

    def reset(self) -> None:
        """Forgets every configuration read (one changed): the next lint looks again."""
        self.workspace.reset()

    def configure(self, config: str | None, isolated: bool, selection: Selection) -> str | None:
        """Lints with the editor's settings from now on (``--config``, ``--isolated`` and the
        selection, as ``check`` takes them); why not, if ``config`` cannot be used (then the
        settings apply without it)."""
        problem = None
        try:
            workspace = Workspace(Path(config) if config else None, isolated, selection, _log_crash)
        except SettingsError as error:
            problem = str(error)
            workspace = Workspace(None, isolated, selection, _log_crash)
        self.workspace = workspace
        return problem

    def settings_for(self, uri: str) -> Settings:
        """The settings that govern the document ``uri`` (its configuration file's ``path``);
        raises SettingsError, OSError as ``Workspace.settings_for`` does."""
        return self.workspace.settings_for(path_of(uri))

    def lint(self, uri: str, text: str) -> Linted:
        self.lints += 1
        name = name_of(uri)
        encoding = for_name(name)
        if encoding is not None and not encoding.text:
            return _not_text(name, text, encoding.name)
        if path_of(uri) is not None and name_says(name) == "foreign":
            # As `check` skips a file by its name (a `.h5` holding JSON is still no document).
            extension = os.path.splitext(name)[1]  # noqa: PTH122
            return Linted(name, text, None, [], skipped=f"tpuemb reads no {extension} files")
        if has_surrogates(text):
            return self.unencodable(uri, text)
        data = text.encode("utf-8")
        if encoding is None and not detect(name, data).text:
            # A name that says nothing (a checkpoint's `.index`, `.data-00000-of-00001`) over
            # bytes that are binary or a zip: not a text buffer either.
            return _not_text(name, text, detect(name, data).name)
        if len(data) > DEFAULT_MAX_BYTES:
            size = f"{len(data)} bytes, larger than the limit of {DEFAULT_MAX_BYTES} bytes"
            return Linted(name, text, None, [], error=f"{name}: the document is {size}")
        # Walked (what is not a TPU embedding document is skipped, not reported) unless the
        # name says text format: an editor opens every JSON and YAML file, and any buffer.
        named_text = encoding is not None and encoding.name == "text"
        linted = self.workspace.lint_document(
            data, name, walked=not named_text, on_disk=path_of(uri) is not None
        )
        return Linted(
            name,
            text,
            linted.document,
            linted.findings,
            linted.engine,
            linted.skipped,
            linted.error,
        )

    def unencodable(self, uri: str, text: str) -> Linted:
        """A buffer holding a lone surrogate (half of a UTF-16 pair: a broken paste, another
        tool's bug) has no UTF-8 form, so there is no file to lint: ``check`` reports such a
        file as not UTF-8 text. Said at the surrogate, if the rest is a TPU embedding document;
        a JSON or YAML file that is none stays quiet, as ever."""
        name = name_of(uri)
        surrogate = re.compile("[\ud800-\udfff]")
        found = surrogate.search(text)
        assert found is not None
        offset = found.start()
        probe = self.lint(uri, surrogate.sub("\ufffd", text))  # is it a document at all?
        if probe.skipped is not None:
            return probe._replace(text=text)
        line = text.count("\n", 0, offset) + 1
        why = (
            f"it is not UTF-8 text: line {line} holds U+{ord(text[offset]):04X}, half of a UTF-16 "
            "surrogate pair, which UTF-8 cannot encode; delete it, or write the character it "
            "was meant to be"
        )
        return Linted(name, text, None, [], error=why, error_offset=offset)


def _not_text(name: str, text: str, kind: str) -> Linted:
    """A binary file or an archive (``.pb``, ``.keras``, a checkpoint) open in the editor: left
    alone. The editor's buffer is its bytes decoded as text, mangled: parsed, it would be a false
    finding (a ``.keras`` read from it has a "bad magic number"). ``tpuemb check`` reads the
    file."""
    return Linted(name, text, None, [], skipped=f"{kind} files are not linted from the editor")


def _log_crash(during: str, error: BaseException) -> None:
    """The traceback goes to stderr, which editors keep in the server's log."""
    import sys

    lines = traceback.format_exception(type(error), error, error.__traceback__)
    sys.stderr.write(f"tpuemb server: internal error {during}:\n{''.join(lines)}")
