"""``write_fdo_stats``: stacks' statistics as a jax-tpu-embedding FDO client writes them, for its
``NPZFileFDOClient`` or ``CSVFileFDOClient`` to ``load()``.

Each non-empty statistic is one array keyed ``<stack><suffix>``: one row as a 1-D array, several
as a 2-D one, ``id_drop_counters`` as a 1-D array (the CSV client cannot write the 0-d counter a
single batch leaves). Into a directory: ``fdo_stats_<process>_<time_ns>.<kind>``, the name the
clients give a process's files (``jax.process_index()``; a process's newest is the one its
``load()`` reads, so several hosts' samples need a process each); or to the file named.

Refused before anything is written (``check_target``): a target that is a symbolic link, or
exists and is neither a regular file nor a directory (a FIFO, a device: ``/dev/null`` would be
replaced by a file), a file named with the other format's extension, and a directory already
holding the other format's files (the clients' ``load()`` and tpuemb's reader read one format a
directory).
Written to a temporary file beside the target (``.tpuemb-fdo-*.tmp``, which the clients' glob
does not match) and moved into place with ``os.replace``, so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from tpuemb_cli.load.checkpoint_state import why
from tpuemb_cli.load.fdo.files import FILE_NAME, entries, globbed
from tpuemb_cli.load.fdo.jax_csv import write_jax_csv
from tpuemb_cli.load.fdo.npz import write_npz
from tpuemb_cli.load.fdo.stats import SUFFIXES, FdoError, Rows, StackStats, shown

KINDS = ("npz", "csv")


def check_target(path: Path, kind: Literal["npz", "csv"]) -> None:
    """`FdoError` when ``write_fdo_stats`` may not write ``kind`` statistics to ``path`` (the
    module says which targets)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be 'npz' or 'csv', not {kind!r}")
    try:
        mode: int | None = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise FdoError(f"{shown(path)}: cannot be written: {why(error)}") from None
    if mode is not None and stat.S_ISLNK(mode):
        raise FdoError(
            f"{shown(path)}: a symbolic link; tpuemb writes statistics to the folder or file "
            "itself: name it"
        )
    if mode is not None and stat.S_ISDIR(mode):
        other = KINDS[1 - KINDS.index(kind)]
        found = globbed(entries(path), other)
        if found:
            raise FdoError(
                f"{shown(path)}: holds .{other} statistics files ({shown(sorted(found)[0])}); a "
                f".{kind} file beside them would leave the folder unreadable (a client reads one "
                f"format): write .{other} here, or into another folder"
            )
        return
    if mode is not None and not stat.S_ISREG(mode):
        raise FdoError(
            f"{shown(path)}: not a regular file or a folder (a FIFO, a device or a socket); "
            "statistics are written to a folder or a file, never through a special file"
        )
    other = KINDS[1 - KINDS.index(kind)]
    if path.suffix == f".{other}":
        raise FdoError(
            f"{shown(path)}: a .{other} name for {kind} statistics; a reader would take it for "
            f"the {other} client's file: name it .{kind}"
        )


def write_fdo_stats(
    path: Path,
    stacks: Mapping[str, StackStats],
    *,
    kind: Literal["npz", "csv"],
    process: int = 0,
) -> None:
    """Writes ``stacks`` to ``path`` (a directory: a new file of process ``process`` in it; a
    path that does not exist and has no extension: that directory, made -- the library's FDO
    clients read a directory; else that file); `FdoError` for a target
    ``check_target`` refuses."""
    if process < 0:
        raise ValueError(f"process must be 0 or more, not {process}")
    path = Path(path)
    check_target(path, kind)
    if not path.exists() and not path.is_symlink() and not path.suffix:
        try:
            path.mkdir()
        except OSError as error:
            raise FdoError(f"{shown(path)}: cannot be made a folder: {why(error)}") from None
    if path.is_dir():
        path = path / f"{FILE_NAME}_{process}_{time.time_ns()}.{kind}"
    data = _encoded(_arrays(stacks, path), kind, path)
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=".tpuemb-fdo-", suffix=".tmp"
        )
    except OSError as error:
        raise FdoError(f"{shown(path)}: cannot be written: {why(error)}") from None
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        Path(temporary).chmod(0o644)
        Path(temporary).replace(path)
    except OSError as error:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
        raise FdoError(f"{shown(path)}: cannot be written: {why(error)}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
        raise


def _encoded(arrays: dict[str, Rows], kind: str, path: Path) -> bytes:
    if kind == "npz":
        archive = io.BytesIO()
        write_npz(arrays, archive, shown(path))
        return archive.getvalue()
    text = io.StringIO(newline="")
    write_jax_csv(arrays, text)
    return text.getvalue().encode("utf-8")


def _arrays(stacks: Mapping[str, StackStats], path: Path) -> dict[str, Rows]:
    arrays: dict[str, Rows] = {}
    for stack, stats in stacks.items():
        for field, suffix in SUFFIXES.items():
            rows: Rows = (
                (stats.id_drop_counters,) if field == "id_drop_counters" else getattr(stats, field)
            )
            if rows and rows != ((),):
                arrays[f"{stack}{suffix}"] = rows
    for key, rows in arrays.items():
        if any(len(row) != len(rows[0]) for row in rows):
            raise FdoError(f"{shown(path)}: {key!r:.80}: rows of different lengths")
    return arrays
