"""``write_fdo_stats``: stacks' statistics as a jax-tpu-embedding FDO client writes them, for its
``NPZFileFDOClient`` or ``CSVFileFDOClient`` to ``load()``.

Each non-empty statistic is one array keyed ``<stack><suffix>``: one row as a 1-D array, several
as a 2-D one, ``id_drop_counters`` as a 1-D array (the CSV client cannot write the 0-d counter a
single batch leaves). Into a directory: ``fdo_stats_0_<time_ns>.<kind>``, the name the clients
give process 0's files (a process's newest is the one its ``load()`` reads); or to the file named.
Written to a temporary file beside the target (``.tpuemb-fdo-*.tmp``, which the clients' glob
does not match) and moved into place with ``os.replace``, so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from tpuemb_cli.load.checkpoint_state import why
from tpuemb_cli.load.fdo.files import FILE_NAME
from tpuemb_cli.load.fdo.jax_csv import write_jax_csv
from tpuemb_cli.load.fdo.npz import write_npz
from tpuemb_cli.load.fdo.stats import SUFFIXES, FdoError, Rows, StackStats, shown


def write_fdo_stats(
    path: Path, stacks: Mapping[str, StackStats], *, kind: Literal["npz", "csv"]
) -> None:
    """Writes ``stacks`` to ``path`` (a directory: a new process-0 file in it; a path that does
    not exist and has no extension: that directory, made -- the library's FDO clients read a
    directory; else that file)."""
    if kind not in ("npz", "csv"):
        raise ValueError(f"kind must be 'npz' or 'csv', not {kind!r}")
    path = Path(path)
    if not path.exists() and not path.is_symlink() and not path.suffix:
        try:
            path.mkdir()
        except OSError as error:
            raise FdoError(f"{shown(path)}: cannot be made a folder: {why(error)}") from None
    if path.is_dir():
        path = path / f"{FILE_NAME}_0_{time.time_ns()}.{kind}"
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
