"""The files of one OCDBT store, read within its directory and within a budget.

A store names its data files by paths relative to its root (``data_file_id.h``: a base path and a
relative path, together at most 65,535 bytes), and a reader must not let them lead elsewhere: a
path that is absolute, has a ``..``, ``.`` or empty component, a backslash or a NUL, or whose
symlinks resolve outside the store's directory, is refused; so is anything that is not a regular
file (a FIFO would block the open, a device never end), checked before it is opened and again on
the opened descriptor (``O_NONBLOCK``, ``O_NOFOLLOW``), so that a file swapped in between is
caught. Only the bytes a reference names are read (``offset``, ``length``), never a whole data
file: those hold the arrays' chunks, which are not needed.

Every read counts against the store's budget, so a hostile tree that references one large node
from many places cannot make the reader read without end.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tpuemb_cli.load.ocdbt.cursor import UnreadableStore

MANIFEST_NAME = "manifest.ocdbt"
# The largest manifest, and the largest node a reference may name. A manifest is a few hundred
# bytes; a node is at most the store's max_decoded_node_bytes (8 MiB by default), compressed.
MAX_RECORD_BYTES = 16 * 1024 * 1024
# What reading one store may read in all: a store of millions of keys, and what the pure-Python
# CRC-32C and decoders get through in about a minute.
MAX_TOTAL_BYTES = 256 * 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS |= getattr(os, "O_BINARY", 0)


class StoreFiles:
    """The directory of one store (an Orbax item directory, or its ``ocdbt.process_<i>``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.read_bytes = 0
        try:
            self._real_root = root.resolve(strict=True)
        except (OSError, RuntimeError, ValueError) as error:
            raise UnreadableStore(f"{root}: cannot open the directory: {_why(error)}") from None
        if not self._real_root.is_dir():
            raise UnreadableStore(f"{root}: is not a directory (an OCDBT store is one)")

    def manifest(self) -> bytes:
        """The bytes of ``manifest.ocdbt``, refused past ``MAX_RECORD_BYTES``."""
        path = self.root / MANIFEST_NAME
        if not path.exists() and not path.is_symlink():
            raise UnreadableStore(
                f"{path}: not found: {self.root} is not an OCDBT store (Orbax writes one "
                "manifest.ocdbt in each checkpoint item directory)"
            )
        return self._read(MANIFEST_NAME, 0, None, "manifest")

    def name(self, relative: str) -> Path:
        """Where a path of the store is, for messages."""
        return self.root / relative

    def read(self, path: bytes, offset: int, length: int, what: str) -> bytes:
        """The ``length`` bytes at ``offset`` of the data file at ``path`` (relative to the store's
        root, as a data file table spells it)."""
        if length > MAX_RECORD_BYTES:
            raise UnreadableStore(
                f"{self.root / _printable(path)}: a {what} of {length:,} bytes is referenced "
                f"(at byte {offset:,}); more than the {MAX_RECORD_BYTES:,} read"
            )
        return self._read(_checked_relative(self.root, path), offset, length, what)

    def _read(self, relative: str, offset: int, length: int | None, what: str) -> bytes:
        shown = self.root / relative
        try:
            real = (self._real_root / relative).resolve(strict=True)
        except (OSError, RuntimeError, ValueError) as error:
            raise UnreadableStore(
                f"{shown}: cannot open the {what}'s file: {_why(error)}"
            ) from None
        if real != self._real_root and self._real_root not in real.parents:
            raise UnreadableStore(
                f"{shown}: leads outside the store's directory (to {real}); refused"
            )
        try:
            before = real.stat()
            if not stat.S_ISREG(before.st_mode):
                raise UnreadableStore(f"{shown}: is not a regular file; a {what} is read from one")
            descriptor = os.open(real, _OPEN_FLAGS)
        except OSError as error:
            raise UnreadableStore(
                f"{shown}: cannot open the {what}'s file: {_why(error)}"
            ) from None
        with os.fdopen(descriptor, "rb") as file:
            try:
                status = os.fstat(file.fileno())
                if not stat.S_ISREG(status.st_mode):
                    raise UnreadableStore(f"{shown}: is not a regular file; refused")
                size = status.st_size
                if length is None:
                    if size > MAX_RECORD_BYTES:
                        raise UnreadableStore(
                            f"{shown}: is {size:,} bytes long; a {what} is at most "
                            f"{MAX_RECORD_BYTES:,}"
                        )
                    length = size
                if offset + length > size:
                    raise UnreadableStore(
                        f"{shown}: a {what} of {length:,} bytes at byte {offset:,} is referenced, "
                        f"but the file is {size:,} bytes long (truncated or missing data)"
                    )
                self.read_bytes += length
                if self.read_bytes > MAX_TOTAL_BYTES:
                    raise UnreadableStore(
                        f"{shown}: reading the store would read more than {MAX_TOTAL_BYTES:,} "
                        "bytes of manifests, nodes and values; refused"
                    )
                file.seek(offset)
                data = file.read(length)
            except OSError as error:
                raise UnreadableStore(f"{shown}: cannot read the {what}: {_why(error)}") from None
        if len(data) != length:
            raise UnreadableStore(f"{shown}: the file ended while its {what} was read")
        return data


def _checked_relative(root: Path, path: bytes) -> str:
    """``path`` as a relative path inside the store, or why not."""
    try:
        text = path.decode("utf-8")
    except UnicodeDecodeError:
        raise UnreadableStore(
            f"{root}: a data file's path is not UTF-8: {_printable(path)}"
        ) from None
    parts = text.split("/")
    bad = (
        not text
        or text.startswith("/")
        or "\\" in text
        or "\0" in text
        or any(part in ("", ".", "..") for part in parts)
        or (len(parts[0]) >= 2 and parts[0][1] == ":")
    )
    if bad:
        raise UnreadableStore(
            f"{root}: a data file's path, {text!r}, is not a plain relative path inside the store; "
            "refused"
        )
    return text


def _printable(path: bytes) -> str:
    return path.decode("utf-8", "backslashreplace")


def _why(error: OSError | RuntimeError | ValueError) -> str:
    return error.strerror if isinstance(error, OSError) and error.strerror else str(error)
