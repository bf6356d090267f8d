"""The Python API: lint a file, a string or a message object and get findings back.

>>> from tpuemb_cli import lint_string
>>> [f.rule for f in lint_string("mode: TRAINING", isolated=True)]
['TE410', 'TE502', 'TE502']

Files are linted as ``tpuemb check`` lints them, through the same pipeline (``workspace``): the
configuration that governs a file (the nearest ``.tpuemb.toml`` or ``pyproject.toml`` with
``[tool.tpuemb]`` above it) applies, with its selection, severities, per-file ignores and
suppressions; ``isolated=True`` reads none. A string or message named with a path (``name=``)
is governed by that path's configuration, as ``--stdin-filename`` makes it for ``check -``; one
with the default name by none. Live objects (``tpuemb_cli.tf.lint_tf``, ``tpuemb_cli.jax.lint_jax``,
``tpuemb_cli.keras.lint_keras``, through ``lint_objects``) are governed by the working
directory's configuration, as ``check -`` reads stdin, and take ``tpu`` and ``isolated`` as here.
Raises ``ValueError`` for an unknown chip and ``SettingsError`` (``tpuemb_cli.engine.settings``)
for a configuration that cannot be used.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from google.protobuf.message import Message

from tpuemb_cli.engine.settings import Selection, SettingsError
from tpuemb_cli.load import Document, load_message
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.workspace import Linted, Workspace


def _workspace(
    tpu: str | None, isolated: bool, options: Mapping[str, str] | None = None
) -> Workspace:
    """A workspace that finds each file's configuration (none when ``isolated``); with ``tpu``,
    the memory rules check that chip; ``options``: front-end options by name
    (``{"keras-backend": "tensorflow"}``), over the configuration's. Raises ValueError for a chip
    tpuemb does not know, or an option no front-end declares or a value it does not take."""
    if tpu is None and not options:
        return Workspace(isolated=isolated)
    chip = None
    if tpu is not None:
        from tpuemb_cli.model.accelerators import parse

        # UnknownTpu is a ValueError, with the suggestion in its message.
        chip = parse(tpu).name
    selection = Selection(tpu=chip, options=_checked_options(options or {}))
    return Workspace(isolated=isolated, selection=selection)


def _checked_options(options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    from tpuemb_cli.frontends import options as declared

    known = {option.name: option for option in declared()}
    for name, value in options.items():
        option = known.get(name)
        if option is None:
            raise ValueError(f"unknown option {name!r} (known: {', '.join(known)})")
        if value not in option.choices:
            raise ValueError(
                f"option {name!r} must be one of {', '.join(option.choices)}, not {value!r}"
            )
    return tuple(options.items())


def _placeholder(name: str) -> bool:
    """Whether ``name`` names no file (``<string>``, ``<message>``): no configuration governs it."""
    return name.startswith("<")


def _findings(linted: Linted) -> list[Finding]:
    """The findings, or SettingsError when the configuration that governs the file cannot be
    used (``check`` exits 2 on it)."""
    if linted.error is not None:
        raise SettingsError(linted.error)
    return linted.findings


def lint_file(
    path: str | Path,
    message_type: str | None = None,
    tpu: str | None = None,
    isolated: bool = False,
    options: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Findings for a config file, as ``tpuemb check PATH`` reports them; the format comes from
    its extension (else its content). ``tpu``: the chip it runs on (``"v5p"``), for the memory
    rules; ``isolated``: no configuration file applies; ``options``: the front-ends' options
    by name, as their flags give them (``{"keras-backend": "tensorflow"}``).

    Raises OSError if the file cannot be read.
    """
    data = Path(path).read_bytes()
    workspace = _workspace(tpu, isolated, options)
    linted = workspace.lint_document(data, str(path), message_type=message_type, exclude=False)
    return _findings(linted)


def lint_string(
    content: str | bytes,
    name: str = "<string>",
    format: str = "text",
    message_type: str | None = None,
    tpu: str | None = None,
    isolated: bool = False,
    options: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Findings for a config given as text format (default), JSON, binary or YAML content
    (``format`` is an encoding's name: ``tpuemb_cli.load.encodings.names()``); ``tpu``,
    ``isolated`` and ``options`` as for ``lint_file``."""
    from tpuemb_cli.load import load_bytes

    data = content.encode("utf-8") if isinstance(content, str) else content
    return _lint_loaded(load_bytes(data, name, format, message_type), tpu, isolated, options)


def lint_message(
    message: Message, name: str = "<message>", tpu: str | None = None, isolated: bool = False
) -> list[Finding]:
    """Findings for a message object: ours, or TensorFlow's own ``TPUEmbeddingConfiguration``
    or ``OptimizationParameters`` (read through the wire format). Findings have field paths but
    no line numbers.
    """
    return _lint_loaded(load_message(message, name), tpu, isolated)


def lint_objects(document: Document, tpu: str | None, isolated: bool) -> list[Finding]:
    """Findings for a document built from a library's live objects (``lint_tf``, ``lint_jax``,
    ``lint_keras``): no file names it, so the working directory's configuration governs it (none
    when ``isolated``), as it governs ``check -``; ``tpu`` as for ``lint_file``."""
    workspace = _workspace(tpu, isolated)
    return _findings(workspace.lint_loaded(document, on_disk=False))


def _lint_loaded(
    document: Document, tpu: str | None, isolated: bool, options: Mapping[str, str] | None = None
) -> list[Finding]:
    """A document loaded as the caller said, linted with the settings its name's configuration
    gives."""
    workspace = _workspace(tpu, isolated or _placeholder(document.name), options)
    return _findings(workspace.lint_loaded(document))
