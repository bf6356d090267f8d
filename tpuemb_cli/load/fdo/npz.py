"""jax-tpu-embedding's NPZ statistics files (``NPZFileFDOClient``, ``lib/fdo/file_fdo_client.py``
v0.1.0), read and written without numpy.

An ``.npz`` is a zip of ``<key>.npy`` members (``jax.numpy.savez``, which is ``numpy.savez``:
stored, not compressed); ``np.load`` names each member's array by the member's name without
``.npy``. Read: stored and deflated members (``numpy.savez_compressed``), each a ``.npy`` of
integers (``load/fdo/npy.py``). Refused: a file that is not a zip or is truncated, a central
directory larger than ``MAX_DIRECTORY_BYTES`` or of more than ``MAX_MEMBERS`` members, two
members of one key (``a`` and ``a.npy``), a member that is not a ``.npy`` of integers, encrypted
members, and members that declare or decompress to more than ``MAX_DECODED_BYTES`` in all (a
zip bomb is read no further than its declared size, which is checked first). Nothing is
extracted to disk.
"""

from __future__ import annotations

import io
import lzma
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from tpuemb_cli.load.fdo.npy import NpyArray, read_npy, write_npy
from tpuemb_cli.load.fdo.stats import FdoError, Rows, shown

MAX_MEMBERS = 65_536
MAX_DIRECTORY_BYTES = 16 * 1024 * 1024
MAX_DECODED_BYTES = 256 * 1024 * 1024
# The end of central directory record, its zip64 locator and record (APPNOTE 4.3.14-4.3.16).
_END, _END_SIZE = b"PK\x05\x06", 22
_LOCATOR, _ZIP64_END = b"PK\x06\x07", b"PK\x06\x06"
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    NotImplementedError,
    RuntimeError,
    EOFError,
    OSError,
    ValueError,
    KeyError,
    zlib.error,
    lzma.LZMAError,
    struct.error,
)


def is_zip(data: bytes) -> bool:
    return data[:4] in (b"PK\x03\x04", _END)


def _directory_size(data: bytes, where: str) -> int:
    """The size of the zip's central directory, as its end records declare it."""
    at = data.rfind(_END, max(0, len(data) - _END_SIZE - 65_535))
    if at < 0 or at + _END_SIZE > len(data):
        raise FdoError(f"{where}: not a zip file, or a truncated one (no end of central directory)")
    entries, size = struct.unpack("<HI", data[at + 10 : at + 16])
    if entries == 0xFFFF or size == 0xFFFFFFFF:
        locator = at - 20
        if locator < 0 or data[locator : locator + 4] != _LOCATOR:
            raise FdoError(f"{where}: a truncated zip64 file (no end of central directory locator)")
        (record,) = struct.unpack("<Q", data[locator + 8 : locator + 16])
        if record + 56 > len(data) or data[record : record + 4] != _ZIP64_END:
            raise FdoError(f"{where}: a truncated zip64 file (no zip64 end of central directory)")
        (size,) = struct.unpack("<Q", data[record + 40 : record + 48])
    return int(size)


def read_npz(file: Path, data: bytes) -> Iterator[tuple[str, NpyArray]]:
    """The arrays of an ``.npz``, by ``np.load``'s key, in the zip's order."""
    where = shown(file)
    if _directory_size(data, where) > MAX_DIRECTORY_BYTES:
        raise FdoError(
            f"{where}: a zip directory larger than the {MAX_DIRECTORY_BYTES:,} bytes tpuemb reads"
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _ZIP_ERRORS as error:
        raise FdoError(f"{where}: not a readable zip file ({error})") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise FdoError(f"{where}: {len(members):,} arrays, more than the {MAX_MEMBERS:,} read")
        seen = Counter(_key(member.filename) for member in members)
        twice = next((key for key, count in seen.items() if count > 1), None)
        if twice is not None:
            raise FdoError(f"{where}: two members for the key {twice!r:.80}")
        left = MAX_DECODED_BYTES
        for member in members:
            key = _key(member.filename)
            label = f"{where}!{member.filename}"
            if member.file_size > left:
                raise FdoError(
                    f"{label}: declares {member.file_size:,} bytes, more than the "
                    f"{MAX_DECODED_BYTES:,} tpuemb decompresses from one file"
                )
            try:
                with archive.open(member) as stream:
                    body = stream.read(member.file_size + 1)
            except _ZIP_ERRORS as error:
                raise FdoError(f"{label}: cannot be read from the zip ({error})") from None
            left -= len(body)
            yield key, read_npy(body, label)


def _key(name: str) -> str:
    """The key ``np.load`` gives a member: its name without ``.npy``."""
    return name[:-4] if name.endswith(".npy") else name


def write_npz(stats: dict[str, Rows], target: io.BytesIO, where: str) -> None:
    """``stats`` (key -> rows) as ``numpy.savez`` writes them: stored ``<key>.npy`` members."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, rows in stats.items():
            archive.writestr(f"{key}.npy", write_npy(rows, f"{where}: {key}"))
