"""Input formats and how a file's name (or, failing that, its content) tells them apart."""

from __future__ import annotations

import enum
import os


class Format(enum.Enum):
    TEXT = "text"
    JSON = "json"
    BINARY = "binary"
    YAML = "yaml"


EXTENSIONS: dict[str, Format] = {
    ".pbtxt": Format.TEXT,
    ".textproto": Format.TEXT,
    ".txtpb": Format.TEXT,
    ".prototxt": Format.TEXT,
    ".json": Format.JSON,
    ".pb": Format.BINARY,
    ".binpb": Format.BINARY,
    ".yaml": Format.YAML,
    ".yml": Format.YAML,
}


def format_for_name(name: str) -> Format | None:
    # not PurePath(name).suffix, which costs ten times as much per file
    return EXTENSIONS.get(os.path.splitext(name)[1].lower())  # noqa: PTH122


def detect_format(name: str, data: bytes) -> Format:
    """By extension; for other names (stdin), by content: JSON object, text, else binary."""
    by_name = format_for_name(name)
    if by_name is not None:
        return by_name
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return Format.BINARY
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return Format.JSON
    if "\x00" in text:
        return Format.BINARY
    return Format.TEXT
