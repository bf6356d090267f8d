"""A ``.keras`` archive's configuration, read without Keras and within bounds.

A ``.keras`` file is a zip archive (Keras 3's ``saving_lib``): ``config.json`` (the model's
configuration, one line as Keras writes it), ``metadata.json`` (the Keras version) and
``model.weights.h5`` (the weights). Only the first two are read, by name, from memory: nothing is
extracted to disk (no member's path is ever used as one), nothing is executed or unpickled, and
the weights are never decompressed. Before a member is decompressed its declared size is held
against the limit (``--max-file-size``); it is then decompressed a chunk at a time, and refused as
soon as its data runs past the size its header declares (so never more than the limit and one
chunk), or ends short of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpuemb_cli.load.limits import max_member_bytes
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    import zipfile

CONFIG = "config.json"
METADATA = "metadata.json"
ZIP_MAGIC = b"PK\x03\x04"
# Decompressed bytes asked of zipfile at a time: it decompresses as much as one read asks for
# before it cuts the data at the declared size (a 1 KB member whose header lies was decompressed
# to the 256 MiB limit in one call, twice for `tpuemb check`).
CHUNK = 64 * 1024


class Archive(Record):
    """What was read of an archive: ``config`` (config.json's bytes) and ``keras_version``
    (metadata.json's), or ``error``: why it could not be read. ``no_model``: the file is no
    Keras model archive at all (not a zip, or a zip without config.json), as opposed to one
    whose config.json cannot be read."""

    config: bytes | None = None
    keras_version: str = ""
    error: str = ""
    no_model: bool = False


def is_zip(data: bytes) -> bool:
    return data[:4] == ZIP_MAGIC


def read_archive(data: bytes, limit: int | None = None) -> Archive:
    """config.json and metadata.json of the archive ``data``; never raises on bad input."""
    import io
    import zipfile  # only for an archive

    limit = max_member_bytes() if limit is None else limit
    if not is_zip(data):
        return Archive(error="it is not a zip archive (a .keras file is one)", no_model=True)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [info for info in archive.infolist() if info.filename == CONFIG]
            if not members:
                error = f"the zip archive holds no {CONFIG} (a Keras model's has one)"
                return Archive(error=error, no_model=True)
            if len(members) > 1:
                return Archive(error=f"the archive holds {CONFIG} {len(members)} times")
            config = _member(archive, members[0], limit)
            if isinstance(config, str):
                return Archive(error=config)
            version = ""
            metadata = [info for info in archive.infolist() if info.filename == METADATA]
            if len(metadata) == 1 and metadata[0].file_size <= 64 * 1024:
                version = _version(_member(archive, metadata[0], 64 * 1024))
            return Archive(config=config, keras_version=version)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as error:
        return Archive(error=f"the zip archive cannot be read: {error}")


def members_of_file(path: str, limit: int) -> bytes | None:
    """The members tpuemb reads of the archive at ``path`` -- config.json and metadata.json --
    as a small zip archive of their own, read from the file without reading the rest of it (the
    weights of a model, gigabytes for large tables, stay on disk). None when the file is not an
    archive that holds one config.json of at most ``limit`` bytes: it is then read whole, and
    the codec says what is wrong with it."""
    import io
    import zipfile

    try:
        with open(path, "rb") as handle:  # noqa: PTH123
            if handle.read(4) != ZIP_MAGIC:
                return None
            handle.seek(0)
            with zipfile.ZipFile(handle) as archive:
                wanted = [i for i in archive.infolist() if i.filename in (CONFIG, METADATA)]
                if [i.filename for i in wanted].count(CONFIG) != 1:
                    return None
                members = {}
                for info in wanted:
                    data = _member(archive, info, limit)
                    if isinstance(data, str):
                        return None
                    members[info.filename] = data
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError):
        return None
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as small:
        for name, data in members.items():
            small.writestr(name, data)
    return buffer.getvalue()


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes | str:
    """The member's bytes, or why they cannot be read."""
    import copy
    import zipfile
    import zlib

    if info.flag_bits & 0x1:
        return f"{info.filename} is encrypted"
    if info.file_size > limit:
        return (
            f"{info.filename} is {info.file_size} bytes decompressed, larger than the limit of "
            f"{limit} bytes (raise it with --max-file-size)"
        )
    # zipfile cuts a member at its declared size and checks the CRC there, so a member whose
    # header understates its size would fail only on a CRC mismatch (or pass, cut short, with a
    # CRC forged for the cut). Opened as a copy declaring more than a chunk past it, the member
    # is seen to run past its declared size by this loop, which stops at the first chunk that
    # does; the declared size is at most the limit.
    probe = copy.copy(info)
    probe.file_size = info.file_size + CHUNK + 1
    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(probe) as stream:
            while chunk := stream.read(CHUNK):
                size += len(chunk)
                if size > info.file_size:
                    return (
                        f"{info.filename} holds more than the {info.file_size} bytes its header "
                        "declares (the archive is damaged or was altered)"
                    )
                chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as error:
        return f"{info.filename} cannot be decompressed: {error}"
    if size < info.file_size:
        return (
            f"{info.filename} holds {size} bytes, fewer than the {info.file_size} its header "
            "declares (the archive is damaged or was altered)"
        )
    return b"".join(chunks)


def _version(data: bytes | str) -> str:
    import json

    if isinstance(data, str):
        return ""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return ""
    version = value.get("keras_version") if isinstance(value, dict) else None
    return version if isinstance(version, str) else ""
