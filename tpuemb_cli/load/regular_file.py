"""One regular file's bytes, read within a limit: a symbolic link, a FIFO, a device or a directory
is never read.

The file is checked with ``lstat`` before it is opened, opened ``O_NOFOLLOW`` and ``O_NONBLOCK``
(a FIFO swapped in after the check cannot block the open) and checked again on the opened
descriptor, as ``load/ocdbt/files.py`` and ``load/fdo/files.py`` do; at most ``limit + 1`` bytes
are read, so a file that grows after the check is still refused. Every refusal is the caller's
error class, its message naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tpuemb_cli.load.checkpoint_state import why
from tpuemb_cli.model.words import printable

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS |= getattr(os, "O_BINARY", 0)


def read_regular(file: Path, limit: int, error: type[Exception], inside: str) -> bytes:
    """The bytes of ``file``, at most ``limit``; ``inside`` names what holds it in the message
    that refuses a link (``a checkpoint``)."""
    name = printable(str(file))
    try:
        info = file.lstat()
    except FileNotFoundError:
        raise error(f"{name}: missing") from None
    except OSError as failure:
        raise error(f"{name}: cannot be read: {why(failure)}") from None
    if stat.S_ISLNK(info.st_mode):
        raise error(f"{name}: a symbolic link; tpuemb does not follow links inside {inside}")
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{name}: not a regular file")
    _check_size(name, info.st_size, limit, error)
    try:
        descriptor = os.open(file, _OPEN_FLAGS)
    except OSError as failure:
        raise error(f"{name}: cannot be read: {why(failure)}") from None
    with os.fdopen(descriptor, "rb") as stream:
        try:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                raise error(f"{name}: not a regular file")
            data = stream.read(limit + 1)
        except OSError as failure:
            raise error(f"{name}: cannot be read: {why(failure)}") from None
    _check_size(name, len(data), limit, error)
    return data


def _check_size(name: str, size: int, limit: int, error: type[Exception]) -> None:
    if size > limit:
        raise error(f"{name}: {size} bytes, larger than the {limit} bytes tpuemb reads of it")
