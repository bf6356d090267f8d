"""``read_fdo_stats``: the statistics of an FDO directory (the clients' ``base_dir``) or of one
file, combined as the writing library's ``load()`` combines them.

A directory: the newest file of each process (``load/fdo/files.py``) of one kind -- ``.npz``
(jax-tpu-embedding's ``NPZFileFDOClient``) or ``.csv`` (jax-tpu-embedding's ``CSVFileFDOClient``, or
another library's a front-end reads, ``FrontEnd.statistics``: told apart by the header); each
library's client reads one kind, so a directory with files of both to read is refused, as is one
whose CSV files are of two libraries, or one with none (the clients raise ``FileNotFoundError``).
One file: that file alone, whatever its name, a zip read as NPZ and anything else as CSV.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from tpuemb_cli.frontends import statistics_readers
from tpuemb_cli.load.checkpoint_state import why
from tpuemb_cli.load.fdo.combine import Array, by_stack, merge
from tpuemb_cli.load.fdo.files import Budget, entries, globbed, newest_per_process, read_bytes
from tpuemb_cli.load.fdo.jax_csv import HEADER, csv_rows, read_jax_csv
from tpuemb_cli.load.fdo.npz import is_zip, read_npz
from tpuemb_cli.load.fdo.stats import FdoError, FdoReading, Source, StackStats, shown

EXTENSIONS = ("npz", "csv")


def read_fdo_stats(path: Path) -> FdoReading:
    """The stacks' statistics in ``path`` (a directory or one file), or ``FdoError``."""
    path = Path(path)
    try:
        info = path.stat()
    except OSError as error:
        raise FdoError(f"{shown(path)}: cannot be read: {why(error)}") from None
    if stat.S_ISDIR(info.st_mode):
        files, ignored = _pick(path)
    else:
        files, ignored = [path], []
    stacks, source = _read(files)
    return FdoReading(stacks, tuple(files), tuple(ignored), source)


def _pick(folder: Path) -> tuple[list[Path], list[Path]]:
    names = entries(folder)
    picked = {ext: newest_per_process(folder, globbed(names, ext), ext) for ext in EXTENSIONS}
    kinds = [ext for ext in EXTENSIONS if picked[ext][0]]
    if not kinds:
        raise FdoError(
            f"{shown(folder)}: no statistics files (fdo_stats_<process>_<time>.npz or .csv, as "
            "the FDO clients write them)"
        )
    if len(kinds) > 1:
        raise FdoError(
            f"{shown(folder)}: holds both .npz and .csv statistics files; each client reads one "
            "kind (NPZFileFDOClient the .npz, CSVFileFDOClient the .csv): pass one file, or a "
            "directory of one kind"
        )
    files, ignored = picked[kinds[0]]
    other = next(ext for ext in EXTENSIONS if ext != kinds[0])
    return files, sorted(ignored + [folder / name for name in globbed(names, other)])


def _read(files: list[Path]) -> tuple[dict[str, StackStats], Source]:
    budget = Budget()
    combined: dict[str, Array] = {}
    # Another library's CSV files, combined by its front-end's reader as its load() does.
    totals: Any = None
    sources: set[Source] = set()
    for file in files:
        data = read_bytes(file, budget)
        source, text = _source(file, data)
        if sources and source not in sources:
            raise FdoError(
                f"{shown(file)}: a {source} file among {sources.pop()} files; one library's "
                "client reads one format"
            )
        sources.add(source)
        if source == "jax-npz":
            for key, array in read_npz(file, data):
                _counts(file, key, array.rows)
                merge(combined, key, Array(array.rows, array.width, file), file)
        elif source == "jax-csv":
            for key, found in read_jax_csv(file, text).items():
                _counts(file, key, found.rows)
                merge(combined, key, found, file)
        else:
            if totals is None:
                totals = _reader(source).Totals()
            totals.add(file, text)
    source = sources.pop()
    return (totals.stacks() if totals is not None else by_stack(combined)), source


def _reader(source: Source) -> Any:
    """The front-end's statistics reader of ``source``."""
    return next(reader for reader in statistics_readers() if source == reader.SOURCE)


def _counts(file: Path, key: str, rows: tuple[tuple[int, ...], ...]) -> None:
    """Refuses a negative value: every statistic counts ids (or buffer elements)."""
    for row in rows:
        for value in row:
            if value < 0:
                raise FdoError(
                    f"{shown(file)}: `{shown(key)}` holds {value}: the statistics count ids, "
                    "and no count is negative"
                )


def _source(file: Path, data: bytes) -> tuple[Source, str]:
    """Which writer's format ``data`` is in, and its text (a CSV's)."""
    if is_zip(data):
        return "jax-npz", ""
    text = _text(file, data)
    header = next(csv_rows(text, file), (1, []))[1]
    if header == HEADER:
        return "jax-csv", text
    readers = statistics_readers()
    for reader in readers:
        if reader.is_header(header):
            return str(reader.SOURCE), text
    others = "".join(f" or {reader.HEADER}" for reader in readers)
    raise FdoError(
        f"{shown(file)}:1: neither an .npz (a zip) nor a statistics CSV: the header is "
        f"{','.join(header)[:80]!r}, the FDO clients write `key,values` (jax-tpu-embedding)"
        f"{others}"
    )


def _text(file: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FdoError(f"{shown(file)}: not UTF-8 text (byte {error.start})") from None
