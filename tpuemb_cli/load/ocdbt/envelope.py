"""The envelope every OCDBT manifest, version tree node and B+tree node is written in, opened:
checked and, when it is compressed, decompressed within a bound.

``codec_util.cc`` (``DecodeWithOptionalCompression``): a 4-byte big-endian magic number (one per
kind of record), the record's whole length as a little-endian uint64, a varint format version
(0), a varint compression format (0 none, 1 zstd), the body, and a little-endian CRC-32C of all
the bytes before it. The CRC is checked (``sstable.crc32c``, a table-driven pure-Python CRC-32C:
these records are small; a few MiB at most) before the body is decompressed, so corrupt bytes are
refused without being inflated.

zstd is the third-party ``zstandard`` package (the ``orbax`` extra), imported only when a
compressed record is met. A zstd frame may declare its decompressed size, and ``zstandard``'s
``max_output_size`` bounds only frames that do not, so the declared size is checked first.
"""

from __future__ import annotations

from tpuemb_cli.load.ocdbt.cursor import Cursor, UnreadableStore
from tpuemb_cli.load.sstable import crc32c

MANIFEST_MAGIC = 0x0CDB3A2A
VERSION_NODE_MAGIC = 0x0CDB1234
BTREE_NODE_MAGIC = 0x0CDB20DE
# magic, length, and the CRC: the smallest record tensorstore decodes (kMinLength).
MIN_LENGTH = 4 + 8 + 4
# What one record may decompress to. tensorstore splits B+tree nodes at the store's
# max_decoded_node_bytes (8 MiB by default); a manifest and a version node are far smaller.
MAX_DECODED_BYTES = 16 * 1024 * 1024
INSTALL_HINT = "pip install 'tpuemb[orbax]'"
_NONE, _ZSTD = 0, 1


def zstd_available() -> bool:
    """Whether the ``zstandard`` package imports: Orbax compresses every record of its stores with
    zstd, so without it no Orbax checkpoint's store can be read."""
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


def open_record(encoded: bytes, magic: int, kind: str, where: str) -> Cursor:
    """The body of one record of ``kind`` ("manifest", "B+tree node", ...), its envelope checked and
    removed; ``where`` names the file (and the bytes of it) for messages."""
    outer = Cursor(encoded, where)
    if len(encoded) < MIN_LENGTH:
        raise outer.fail(
            f"is {len(encoded):,} bytes long: too short for an OCDBT {kind} "
            f"(at least {MIN_LENGTH} bytes)"
        )
    found = int.from_bytes(encoded[:4], "big")
    if found != magic:
        raise outer.fail(
            f"is not an OCDBT {kind}: it starts with 0x{found:08x}, not the magic number "
            f"0x{magic:08x}"
        )
    outer.at = 4
    length = outer.fixed(8, "length")
    if length != len(encoded):
        raise outer.fail(
            f"its header says the {kind} is {length:,} bytes long, but it is {len(encoded):,} "
            "(truncated or corrupt)"
        )
    stored = int.from_bytes(encoded[-4:], "little")
    computed = crc32c(encoded[:-4])
    if stored != computed:
        raise outer.fail(
            f"the {kind}'s CRC-32C is 0x{computed:08x}, not the 0x{stored:08x} it ends with "
            "(the file is corrupt)"
        )
    outer.data = encoded[:-4]
    version = outer.varint("format version", bits=32)
    if version != 0:
        raise outer.fail(f"its format version is {version}; tensorstore writes (and reads) 0")
    compression = outer.varint("compression format", bits=32)
    body = encoded[outer.at : -4]
    if compression == _NONE:
        return Cursor(body, where)
    if compression == _ZSTD:
        return Cursor(_unzstd(body, kind, where), where)
    raise outer.fail(f"its compression format is {compression}, neither 0 (none) nor 1 (zstd)")


def _unzstd(body: bytes, kind: str, where: str) -> bytes:
    try:
        import zstandard
    except ImportError:
        raise UnreadableStore(
            f"{where}: the {kind} is zstd-compressed, and reading it needs the zstandard package "
            f"({INSTALL_HINT})"
        ) from None
    try:
        declared = zstandard.frame_content_size(body)
        if declared > MAX_DECODED_BYTES:
            raise UnreadableStore(
                f"{where}: the {kind}'s zstd frame declares {declared:,} bytes decompressed, more "
                f"than the {MAX_DECODED_BYTES:,} read"
            )
        # One frame, as tensorstore writes it (riegeli's ZstdWriter), and nothing after it.
        return zstandard.ZstdDecompressor().decompress(
            body, max_output_size=MAX_DECODED_BYTES, allow_extra_data=False
        )
    except zstandard.ZstdError as error:
        raise UnreadableStore(
            f"{where}: the {kind}'s zstd frame does not decompress (or decompresses to more than "
            f"{MAX_DECODED_BYTES:,} bytes): {error}"
        ) from None
