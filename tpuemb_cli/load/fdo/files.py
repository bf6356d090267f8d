"""Which statistics files a directory holds, and their bytes, read as the libraries pick them and
within bounds.

The FDO clients of jax-tpu-embedding (``lib/fdo/file_fdo_client.py``, ``csv_file_fdo_client.py``,
v0.1.0), and the other libraries' whose front-ends read their statistics, name a file
``fdo_stats_<process>_<time_ns>.<npz|csv>``. Their ``load()`` globs ``fdo_stats*.<ext>`` in the
base directory, keeps the names in which ``re.search`` finds ``fdo_stats_(\\d+)_(\\d+)\\.<ext>``
(anywhere in the name: ``fdo_stats_0_5.csv.old.csv`` is process ``0`` at time 5), sorts the
tuples ``(process, int(time), path)`` in descending order -- the process as a *string*: ``01``
and ``1`` are two processes -- and reads the first file of each process. ``newest_per_process``
does the same; every other name the glob matches is ``ignored``.

Refused (``FdoError``): a file to read that is a symbolic link, a FIFO, a device or a directory
(checked before the open and again on the opened descriptor, which is opened ``O_NOFOLLOW`` and
``O_NONBLOCK``, as ``load/ocdbt/files.py`` does), a file larger than ``MAX_FILE_BYTES``, more than
``MAX_FILES`` files to read or ``MAX_TOTAL_BYTES`` read in all, and a directory with more than
``MAX_ENTRIES`` entries.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from pathlib import Path

from tpuemb_cli.load.checkpoint_state import why
from tpuemb_cli.load.fdo.stats import FdoError, shown

# A file holds a few arrays a stack, or a few rows a recorded batch with history: 256 MiB is
# millions of batches of a large model; more is not a statistics file.
MAX_FILE_BYTES = 256 * 1024 * 1024
# One file a process is read: a pod slice has at most a few thousand hosts.
MAX_FILES = 16_384
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
# Entries of the directory looked at (names only; older files of a process are never opened).
MAX_ENTRIES = 1_000_000
FILE_NAME = "fdo_stats"
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS |= getattr(os, "O_BINARY", 0)


def pattern(extension: str) -> re.Pattern[str]:
    """The libraries' name pattern (searched, not matched) for files of ``extension``."""
    return re.compile(rf"{FILE_NAME}_(\d+)_(\d+)\.{extension}")


def globbed(names: list[str], extension: str) -> list[str]:
    """The names the libraries' glob ``fdo_stats*.<extension>`` matches (case-sensitive, as on
    POSIX)."""
    return [name for name in names if fnmatch.fnmatchcase(name, f"{FILE_NAME}*.{extension}")]


def newest_per_process(
    folder: Path, names: list[str], extension: str
) -> tuple[list[Path], list[Path]]:
    """The files the library reads (the newest of each process, in its order) and the names its
    glob matches that it does not read."""
    found = pattern(extension)
    groups: list[tuple[str, int, str]] = []
    skipped: list[Path] = []
    for name in names:
        match = found.search(name)
        if match:
            groups.append((match.group(1), int(match.group(2)), str(folder / name)))
        else:
            skipped.append(folder / name)
    groups.sort(reverse=True)
    read: list[Path] = []
    seen: set[str] = set()
    for process, _, path in groups:
        if process in seen:
            skipped.append(Path(path))
        else:
            seen.add(process)
            read.append(Path(path))
    return read, sorted(skipped)


def entries(folder: Path) -> list[str]:
    """The names in ``folder``, at most ``MAX_ENTRIES``."""
    names: list[str] = []
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                names.append(entry.name)
                if len(names) > MAX_ENTRIES:
                    raise FdoError(
                        f"{shown(folder)}: more than {MAX_ENTRIES:,} entries; tpuemb does not "
                        "list a statistics directory that large"
                    )
    except OSError as error:
        raise FdoError(f"{shown(folder)}: cannot list the directory: {why(error)}") from None
    return names


class Budget:
    """The bytes read so far, across the files of one directory."""

    def __init__(self) -> None:
        self.read = 0
        self.files = 0


def read_bytes(file: Path, budget: Budget) -> bytes:
    """A regular file's bytes, refused past ``MAX_FILE_BYTES`` or the budget: a link, a FIFO, a
    device or a directory is never read."""
    budget.files += 1
    if budget.files > MAX_FILES:
        raise FdoError(
            f"{shown(file.parent)}: more than {MAX_FILES:,} processes' statistics files to read"
        )
    try:
        before = file.lstat()
    except OSError as error:
        raise FdoError(f"{shown(file)}: cannot be read: {why(error)}") from None
    if stat.S_ISLNK(before.st_mode):
        raise FdoError(
            f"{shown(file)}: a symbolic link; tpuemb reads statistics files, not links to them "
            "(copy the file, or pass the file it points to)"
        )
    if not stat.S_ISREG(before.st_mode):
        raise FdoError(f"{shown(file)}: not a regular file")
    try:
        descriptor = os.open(file, _OPEN_FLAGS)
    except OSError as error:
        raise FdoError(f"{shown(file)}: cannot be opened: {why(error)}") from None
    with os.fdopen(descriptor, "rb") as stream:
        try:
            status = os.fstat(stream.fileno())
            if not stat.S_ISREG(status.st_mode):
                raise FdoError(f"{shown(file)}: not a regular file")
            _check_size(file, status.st_size, budget)
            data = stream.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            raise FdoError(f"{shown(file)}: cannot be read: {why(error)}") from None
    _check_size(file, len(data), budget)
    budget.read += len(data)
    return data


def _check_size(file: Path, size: int, budget: Budget) -> None:
    if size > MAX_FILE_BYTES:
        raise FdoError(
            f"{shown(file)}: {size:,} bytes, larger than the {MAX_FILE_BYTES:,} bytes tpuemb "
            "reads of a statistics file"
        )
    if budget.read + size > MAX_TOTAL_BYTES:
        raise FdoError(
            f"{shown(file)}: reading it would read more than {MAX_TOTAL_BYTES:,} bytes of "
            "statistics files in all; refused"
        )
