"""A reader of the sorted string tables TensorFlow writes as a checkpoint's ``.index`` file.

TensorFlow's table format is LevelDB's (``tensorflow/core/lib/io/``: ``format.cc``, ``block.cc``,
``table.cc``; tag v2.21.0), with user keys as they are (no LevelDB sequence numbers):

- the file ends in a 48-byte footer: the metaindex block's handle and the index block's handle
  (each two varint64s: offset, size), zero padding to 40 bytes, and the magic number
  ``0xdb4775248b80fb57`` (two little-endian fixed32s, low word first);
- every block is followed by a 5-byte trailer: its compression type (0 none, 1 snappy) and the
  masked CRC32C of the block and that type byte;
- a block is its entries, then its restart points (fixed32 offsets) and their count (fixed32);
  an entry is varint32 ``shared``, ``non_shared`` and ``value_length``, the key's bytes past the
  ``shared`` it takes from the previous key, and the value;
- the index block holds one entry per data block, whose value is that block's handle; the data
  blocks hold the keys, in order.

TensorFlow 2.x's tensor bundle writer never compresses (``TableBuilderOptions`` in
``tensorflow/core/util/tensor_bundle/tensor_bundle.cc`` sets ``kNoCompression``;
``tests/test_tf_checkpoint.py`` checks every block of the indexes TensorFlow 2.21 writes), but
TensorFlow 1.x wrote snappy blocks, and SavedModels of that time are still around: they are
decompressed (``snappy``), within a budget of bytes for the whole table.

Every length and offset is checked against what holds it before it is used: a truncated or
hostile file is a ``TableError`` naming what is wrong and where, never an IndexError, a hang or
an allocation the file's size does not bound. Data blocks must follow one another without
overlap, as TensorFlow writes them, so reading a table costs at most one pass over the file.
"""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.load.snappy import SnappyError, decompress

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
TRAILER_SIZE = 5
_HANDLES_SIZE = 40  # two block handles of at most 20 bytes each, zero-padded
_NO_COMPRESSION, _SNAPPY = 0, 1
_MASK_DELTA = 0xA282EAD8
# What the compressed blocks of one table may decompress to, together. TensorFlow's blocks are a
# few hundred kilobytes; a real index is far smaller than this.
MAX_INFLATED = 256 * 1024 * 1024


class TableError(ValueError):
    """The bytes are not a well-formed sorted string table; the message says what and where."""


def _crc32c_table() -> list[int]:
    # CRC-32C (Castagnoli), reflected polynomial 0x82F63B78.
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data: bytes | memoryview) -> int:
    """The CRC-32C of ``data``."""
    table = _CRC_TABLE
    crc = 0xFFFFFFFF
    for byte in bytes(data):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def mask(crc: int) -> int:
    """A CRC as LevelDB stores it: rotated right by 15 bits plus a constant (``crc32c::Mask``),
    so that the CRC of data holding CRCs is not trivially related to them."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def varint(data: bytes, at: int, limit: int, bits: int, what: str) -> tuple[int, int]:
    """The varint at ``data[at:limit]`` of at most ``bits`` bits, and the offset past it."""
    value, shift, start = 0, 0, at
    while True:
        if at >= limit:
            raise TableError(f"{what}: a varint runs past its end (at byte {start})")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
        if shift >= bits:
            raise TableError(f"{what}: a varint longer than {bits} bits (at byte {start})")
    if value >> bits:
        raise TableError(f"{what}: a varint larger than {bits} bits (at byte {start})")
    return value, at


class Handle:
    """Where a block lies: ``offset`` and ``size`` (without its trailer)."""

    __slots__ = ("offset", "size")

    def __init__(self, offset: int, size: int) -> None:
        self.offset, self.size = offset, size

    @property
    def end(self) -> int:
        """The offset just past the block's trailer."""
        return self.offset + self.size + TRAILER_SIZE

    @classmethod
    def decode(cls, data: bytes, at: int, limit: int, what: str) -> tuple[Handle, int]:
        offset, at = varint(data, at, limit, 64, what)
        size, at = varint(data, at, limit, 64, what)
        return cls(offset, size), at


class Table:
    """A sorted string table in memory (``data``: the whole file)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.inflated = 0  # bytes decompressed so far
        if len(data) < FOOTER_SIZE:
            raise TableError(
                f"{len(data)} bytes: shorter than the {FOOTER_SIZE}-byte footer of a table"
            )
        footer = len(data) - FOOTER_SIZE
        magic = int.from_bytes(data[footer + _HANDLES_SIZE :], "little")
        if magic != MAGIC:
            raise TableError(
                f"bad magic number {magic:#018x} in the footer (a table ends in {MAGIC:#018x})"
            )
        end = footer + _HANDLES_SIZE
        # The metaindex block (filters, which TensorFlow never writes) is checked to lie in the
        # file but not read, as TensorFlow's Table::Open does not read it.
        self.metaindex, at = Handle.decode(data, footer, end, "the footer's metaindex handle")
        self.index, _ = Handle.decode(data, at, end, "the footer's index handle")
        # Blocks lie before the footer.
        self.blocks_end = footer
        self._check(self.metaindex, "the metaindex block")
        self._check(self.index, "the index block")

    def _check(self, handle: Handle, what: str) -> None:
        if handle.end > self.blocks_end:
            raise TableError(
                f"{what} (offset {handle.offset}, {handle.size} bytes and a {TRAILER_SIZE}-byte "
                f"trailer) runs past the blocks' end at byte {self.blocks_end}"
            )

    def block(self, handle: Handle, what: str) -> bytes:
        """The contents of the block at ``handle``, its checksum verified."""
        self._check(handle, what)
        start, end = handle.offset, handle.offset + handle.size
        data = self.data
        kind = data[end]
        stored = int.from_bytes(data[end + 1 : end + TRAILER_SIZE], "little")
        actual = mask(crc32c(memoryview(data)[start : end + 1]))
        if stored != actual:
            raise TableError(
                f"{what} at byte {start}: checksum mismatch (stored {stored:#010x}, "
                f"computed {actual:#010x}): the file is corrupt"
            )
        if kind == _SNAPPY:
            try:
                block = decompress(data[start:end], MAX_INFLATED - self.inflated)
            except SnappyError as error:
                raise TableError(f"{what} at byte {start}: bad snappy data: {error}") from None
            self.inflated += len(block)
            return block
        if kind != _NO_COMPRESSION:
            raise TableError(f"{what} at byte {start}: unknown block type {kind}")
        return data[start:end]

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """Every (key, value) of the table, in order; keys strictly increase."""
        index = self.block(self.index, "the index block")
        previous: bytes | None = None
        after = 0  # data blocks follow one another: each starts at or after the last one's end
        for number, (_, value) in enumerate(entries(index, "the index block")):
            what = f"data block {number}"
            handle, _ = Handle.decode(value, 0, len(value), f"the index block's handle of {what}")
            if handle.offset < after:
                raise TableError(
                    f"{what} starts at byte {handle.offset}, inside the block before it (which "
                    f"ends at byte {after})"
                )
            after = handle.end
            for key, entry in entries(self.block(handle, what), what):
                if previous is not None and key <= previous:
                    raise TableError(f"{what}: key {key!r} does not sort after {previous!r}")
                previous = key
                yield key, entry


def entries(block: bytes, what: str) -> Iterator[tuple[bytes, bytes]]:
    """The (key, value) entries of a block's contents."""
    size = len(block)
    if size < 4:
        raise TableError(f"{what}: {size} bytes, too short to hold its restart count")
    restarts = int.from_bytes(block[size - 4 :], "little")
    if restarts > (size - 4) // 4:
        raise TableError(f"{what}: {restarts} restart points do not fit in its {size} bytes")
    limit = size - 4 - 4 * restarts  # the entries end where the restart array begins
    for number in range(restarts):
        offset = int.from_bytes(block[limit + 4 * number : limit + 4 * number + 4], "little")
        if offset >= limit and not (offset == 0 and limit == 0):
            raise TableError(f"{what}: restart point {number} ({offset}) is past its entries")
    at, key = 0, b""
    while at < limit:
        shared, at = varint(block, at, limit, 32, what)
        unshared, at = varint(block, at, limit, 32, what)
        length, at = varint(block, at, limit, 32, what)
        if shared > len(key):
            raise TableError(
                f"{what}: an entry shares {shared} bytes of a previous key of {len(key)}"
            )
        if unshared + length > limit - at:
            raise TableError(
                f"{what}: an entry of {unshared} key and {length} value bytes runs past its "
                f"entries (at byte {at} of {limit})"
            )
        key = key[:shared] + block[at : at + unshared]
        at += unshared
        yield key, block[at : at + length]
        at += length
