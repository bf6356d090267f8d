"""The sample of input ids ``tpuemb stats`` reads: one feature's ids per ``.npy`` file (its stem
the feature's name), several per ``.npz`` archive (a member per feature), or CSV; a folder is
every such file in it. Read with numpy (``tpuemb stats`` alone imports this module), never with
pickles, every size checked before it is read; a file tpuemb cannot use is a `IdsError` that
names it, the place and the fix.

The formats (docs/jax.md, "Measuring the limits"):

- **``NAME.npy``**: an integer array, ``(samples, ids)`` -- every sample the same number of ids,
  as the library's dense input. Not ``(samples,)``: the library's preprocessing crashes on a 1-D
  array (a segmentation fault, v0.1.0), so tpuemb refuses one rather than count what never runs.
- **``.npz``**: a member ``NAME`` as above, or a ragged feature as two members,
  ``NAME.values`` (every id, sample after sample) and ``NAME.row_lengths`` (each sample's count
  of ids) or ``NAME.row_splits`` (where each sample starts, and the end: ``samples + 1`` long).
- **CSV** (``.csv``, and ``.txt`` named on the command line): either one feature a file
  (``NAME.csv``), a sample a line, its ids separated by commas or spaces (an empty line: a
  sample without ids); or, with the header
  ``feature,sample,id`` (a ``weight`` column after is ignored), a row per id of any feature, the
  samples numbered from 0 (a feature has as many as its largest number + 1).

Weights do not change the statistics (the preprocessing counts ids; weights only scale them) and
are not read. Ids must be integers in ``[0, 2**31)``: the preprocessing reads them as int32.
"""

from __future__ import annotations

import re
import stat
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tpuemb_cli.load.limits import shown

SUFFIXES = (".npy", ".npz", ".csv", ".txt")
IN_FOLDERS = (".npy", ".npz", ".csv")  # a folder's .txt files are notes as often as ids
ID_LIMIT = 2**31
LONG_HEADER = ("feature", "sample", "id")
RAGGED = (".values", ".row_lengths", ".row_splits")


class FeatureIds(NamedTuple):
    """One feature's ids: ``values`` every id in sample order (int64), ``row_splits`` where each
    sample starts, and the end (``samples + 1`` long)."""

    values: Any  # np.ndarray, int64
    row_splits: Any  # np.ndarray, int64

    @property
    def rows(self) -> int:
        return len(self.row_splits) - 1


class IdsError(ValueError):
    """An ids file tpuemb cannot use (exit 2)."""


ID_BYTES = 8  # every id is held as int64 once read, whatever the file's dtype


class Budget:
    """The bytes of memory left for the ids, over every file (``--max-ids-size``): an array
    counts its elements x 8, the int64 it is converted to (a uint8 ``.npy`` takes 8 times its
    size), a CSV file its text and its ids as int64."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def fits(self, size: int, where: str) -> None:
        if size > self.left:
            raise IdsError(
                f"{where}: {size:,} bytes would take the ids read past {self.limit:,} bytes "
                "(--max-ids-size counts the ids as int64 in memory, 8 bytes each); give a "
                "smaller sample or raise --max-ids-size"
            )

    def take(self, size: int, where: str) -> None:
        self.fits(size, where)
        self.left -= size


def files_of(paths: Iterable[Path]) -> list[Path]:
    """The ids files ``paths`` name: a file as given, a folder's ``.npy``, ``.npz`` and ``.csv``
    entries (not its subfolders), sorted. Each file must be a regular file, not a symbolic link
    (as load/fdo/files.py reads statistics files): a FIFO would hang the read, and a folder's
    entry with an ids name that is not a file would otherwise be skipped unsaid."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir() and not (path.is_symlink() and path.suffix in SUFFIXES):
            inside = sorted(p for p in path.iterdir() if p.suffix in IN_FOLDERS)
            if not inside:
                raise IdsError(f"{path}: no .npy, .npz or .csv file in it")
            found += [_regular(p) for p in inside]
        elif path.exists() or path.is_symlink():
            if path.suffix not in SUFFIXES:
                raise IdsError(f"{path}: not an ids file; name .npy, .npz, .csv or .txt files")
            found.append(_regular(path))
        else:
            raise IdsError(f"{path}: no such file or directory")
    return found


def _regular(path: Path) -> Path:
    """``path`` when it is a regular file, not reached through a symbolic link."""
    try:
        mode = path.lstat().st_mode
    except OSError as problem:
        raise IdsError(f"{path}: {problem.strerror or problem}") from None
    if stat.S_ISREG(mode):
        return path
    if stat.S_ISLNK(mode):
        raise IdsError(f"{path}: a symbolic link, not an ids file; name the file it points to")
    kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else None
    raise IdsError(
        f"{path}: {kind or 'a device or socket'}, not an ids file; ids files are regular files"
    )


def read_ids(paths: Iterable[Path], max_bytes: int) -> dict[str, tuple[FeatureIds, str]]:
    """Every feature's ids in ``paths`` and where they came from; `IdsError` for a file that
    cannot be used, or a feature given twice."""
    budget = Budget(max_bytes)
    features: dict[str, tuple[FeatureIds, str]] = {}
    for file in files_of(paths):
        for name, ids, where in _read(file, budget):
            if name in features:
                raise IdsError(f"{where}: feature {name!r} is also in {features[name][1]}")
            features[name] = (ids, where)
    return features


def _read(file: Path, budget: Budget) -> list[tuple[str, FeatureIds, str]]:
    try:
        size = file.stat().st_size
        if file.suffix == ".npz":
            return _npz(file, budget)
        if file.suffix == ".npy":
            with file.open("rb") as stream:
                array = _array(stream, size, str(file), budget)
            return [(file.stem, _dense(array, str(file)), str(file))]
        budget.take(size, str(file))
        return _csv(file, file.read_text(encoding="utf-8"), budget)
    except IdsError:
        raise
    except OSError as problem:
        raise IdsError(f"{file}: {problem.strerror or problem}") from None
    except UnicodeDecodeError:
        raise IdsError(f"{file}: not UTF-8 text; CSV ids are text") from None
    except (
        ValueError,
        OverflowError,
        EOFError,
        zipfile.BadZipFile,
        NotImplementedError,
    ) as problem:
        # numpy's own words for a file it cannot read (a pickle it will not load, a bad header)
        raise IdsError(f"{file}: cannot be read as {file.suffix[1:]}: {problem}") from None


def _ids(array: Any, where: str, what: str = "id") -> Any:
    """``array`` as int64 ids (or ``what`` else it holds), every one in ``[0, 2**31)``."""
    if array.dtype.kind not in "iu":
        raise IdsError(f"{where}: {array.dtype} values; ids are integers")
    if array.size:
        low, high = int(array.min()), int(array.max())
        if low < 0 or high >= ID_LIMIT:
            bad = low if low < 0 else high
            raise IdsError(
                f"{where}: {what} {bad}, outside [0, 2**31): "
                + (
                    "the preprocessing reads ids as int32 and an embedding id is a row of the table"
                    if what == "id"
                    else "a sample holds 0 or more ids, as int32"
                )
            )
    return array.astype(np.int64, copy=False)


def _dense(array: Any, where: str) -> FeatureIds:
    if array.ndim == 1:
        raise IdsError(
            f"{where}: a 1-D array {array.shape}; the library's preprocessing takes (samples, "
            "ids) and crashes on a 1-D array: reshape it to (samples, 1)"
        )
    if array.ndim != 2:
        raise IdsError(
            f"{where}: an array of {array.ndim} dimensions {array.shape}; a feature's ids are "
            "(samples, ids)"
        )
    rows, width = array.shape
    values = _ids(array, where).reshape(-1)
    return FeatureIds(values, np.arange(rows + 1, dtype=np.int64) * width)


def _array(stream: Any, size: int, where: str, budget: Budget) -> Any:
    """The array of a ``.npy`` stream of ``size`` bytes, its header checked against its size
    and its elements as int64 against ``budget`` before numpy allocates what the header says (a
    header may claim any shape)."""
    version = np.lib.format.read_magic(stream)
    read_header = (
        np.lib.format.read_array_header_1_0
        if version == (1, 0)
        else np.lib.format.read_array_header_2_0
    )
    shape, fortran, dtype = read_header(stream)
    if dtype.hasobject:
        raise IdsError(f"{where}: an array of Python objects, which tpuemb never unpickles")
    count = 1
    for extent in shape:
        count *= extent
    needed = count * dtype.itemsize
    if needed <= size:
        budget.take(count * ID_BYTES, where)
    data = stream.read(needed) if needed <= size else b""
    if len(data) < needed:
        raise IdsError(
            f"{where}: its header says {shape} {dtype} ({needed:,} bytes), more than the file holds"
        )
    array = np.frombuffer(data, dtype=dtype, count=count)
    return array.reshape(shape[::-1]).transpose() if fortran else array.reshape(shape)


def _npz(file: Path, budget: Budget) -> list[tuple[str, FeatureIds, str]]:
    members: dict[str, Any] = {}
    with zipfile.ZipFile(file) as archive:
        infos = archive.infolist()
        # What the members take decompressed, before any is inflated (a zip bomb stops here).
        budget.fits(sum(info.file_size for info in infos), str(file))
        for info in infos:
            name = info.filename.removesuffix(".npy")
            with archive.open(info) as stream:
                members[name] = _array(stream, info.file_size, f"{file}!{name}", budget)
    found: list[tuple[str, FeatureIds, str]] = []
    ragged: dict[str, dict[str, Any]] = {}
    for name, array in members.items():
        part = next((s for s in RAGGED if name.endswith(s)), None)
        if part is None:
            found.append((name, _dense(array, f"{file}!{name}"), f"{file}!{name}"))
        else:
            ragged.setdefault(name[: -len(part)], {})[part] = array
    for name, parts in ragged.items():
        where = f"{file}!{name}"
        if name in members:
            raise IdsError(
                f"{where}: a feature given whole and as "
                f"{', '.join(name + part for part in sorted(parts))}: give one"
            )
        found.append((name, _ragged(parts, where), where))
    return found


def _ragged(parts: dict[str, Any], where: str) -> FeatureIds:
    if ".values" not in parts or len(parts) != 2:
        raise IdsError(
            f"{where}: a ragged feature is two members, {where.rsplit('!', 1)[1]}.values and "
            f"either .row_lengths or .row_splits; found {', '.join(sorted(parts))}"
        )
    values = _ids(parts[".values"].reshape(-1), f"{where}.values")
    if ".row_lengths" in parts:
        lengths = _ids(parts[".row_lengths"].reshape(-1), f"{where}.row_lengths", "row length")
        splits = np.concatenate(([0], np.cumsum(lengths)))
    else:
        splits = _ids(parts[".row_splits"].reshape(-1), f"{where}.row_splits", "row split")
        if not splits.size or splits[0] != 0 or bool((np.diff(splits) < 0).any()):
            raise IdsError(f"{where}.row_splits: must start at 0 and never decrease")
    if int(splits[-1]) != values.size:
        raise IdsError(
            f"{where}: the samples hold {int(splits[-1])} ids and .values has {values.size}"
        )
    return FeatureIds(values, splits.astype(np.int64))


def _csv(file: Path, text: str, budget: Budget) -> list[tuple[str, FeatureIds, str]]:
    lines = text.removeprefix("\ufeff").splitlines()  # a byte-order mark is no cell
    header = tuple(cell.strip() for cell in lines[0].split(",")) if lines else ()
    if header[:3] == LONG_HEADER:
        return _long(file, lines[1:], header, budget)
    counts: list[int] = []
    cells: list[str] = []
    for line in lines:
        row = line.replace(",", " ").split()
        counts.append(len(row))
        cells += row
    budget.take((len(cells) + len(counts) + 1) * ID_BYTES, str(file))
    try:
        if any(_NOT_ID.search(line) for line in lines):
            raise ValueError  # int() takes "1_0" and other scripts' digits: numpy would too
        values = np.array(cells, dtype=np.int64)
    except (ValueError, OverflowError):
        bad = next(
            (n, c) for n, line in enumerate(lines, 1)
            for c in line.replace(",", " ").split() if not _integer(c)
        )  # fmt: skip
        raise IdsError(
            f"{file}:{bad[0]}: {shown(repr(bad[1]))} is not an id (a sample a line, ids "
            "separated by commas or spaces)"
        ) from None
    values = _ids(values, str(file))
    splits = np.concatenate(([0], np.cumsum(np.array(counts, dtype=np.int64))))
    return [(file.stem, FeatureIds(values, splits.astype(np.int64)), str(file))]


_NOT_ID = re.compile(r"[^0-9,\s-]")  # a character no id or separator has
_INTEGER = re.compile(r"-?[0-9]+")  # ASCII digits alone (a negative id is refused as one)


def _integer(cell: str) -> bool:
    return _INTEGER.fullmatch(cell) is not None


def _long(
    file: Path, lines: list[str], header: tuple[str, ...], budget: Budget
) -> list[tuple[str, FeatureIds, str]]:
    width = len(header)
    rows: dict[str, tuple[list[int], list[int]]] = {}
    for number, line in enumerate(lines, 2):
        if not line.strip():
            continue
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != width or not (_integer(cells[1]) and _integer(cells[2])):
            raise IdsError(
                f"{file}:{number}: expected {width} cells, {','.join(header)}, the sample and "
                f"id integers; found {shown(repr(line.strip()))}"
            )
        samples, ids = rows.setdefault(cells[0], ([], []))
        samples.append(int(cells[1]))
        ids.append(int(cells[2]))
    found: list[tuple[str, FeatureIds, str]] = []
    for name, (samples, ids) in rows.items():
        where = f"{file} (feature {name})"
        sample = np.array(samples, dtype=np.int64)
        if int(sample.min()) < 0:
            raise IdsError(f"{where}: sample {int(sample.min())}; samples are numbered from 0")
        # The samples a feature has are its largest number + 1, each a row length and a split
        # in memory: a number far past the rows the file holds is bounded before it allocates.
        samples_of = int(sample.max()) + 1
        if samples_of * 2 * ID_BYTES > budget.left:
            raise IdsError(
                f"{where}: sample {samples_of - 1:,} makes {samples_of:,} samples, whose row "
                f"lengths would take the ids read past --max-ids-size {budget.limit:,} bytes; "
                "samples are numbered from 0, one after another"
            )
        budget.take(samples_of * 2 * ID_BYTES, where)
        order = np.argsort(sample, kind="stable")
        values = _ids(np.array(ids, dtype=np.int64)[order], where)
        lengths = np.bincount(sample, minlength=samples_of)
        found.append((name, FeatureIds(values, np.concatenate(([0], np.cumsum(lengths)))), where))
    return found
