"""Reading OCDBT's encoded fields within bounds: every count, length and varint is checked against
the bytes that hold it before it is used, so a hostile store fails with an ``UnreadableStore``
naming the file and the field, never with an IndexError or an allocation its size does not bound.

Varints are tensorstore's (riegeli's ``ReadVarint64``/``ReadVarint32``, ``codec_util.cc``):
little-endian base-128, at most 10 bytes for 64 bits and 5 for 32, and a value that does not fit
the field's width is refused, as tensorstore refuses it.
"""

from __future__ import annotations


class UnreadableStore(Exception):
    """An OCDBT store (an Orbax checkpoint item) that cannot be read: the message names the file
    and says why."""


class Cursor:
    """A position in the bytes of one encoded record (a manifest, a node), and where they come
    from, for messages."""

    def __init__(self, data: bytes, where: str) -> None:
        self.data = data
        self.where = where
        self.at = 0

    def fail(self, why: str) -> UnreadableStore:
        """The error for something wrong at the cursor (raised by the caller)."""
        return UnreadableStore(f"{self.where}: {why}")

    @property
    def remaining(self) -> int:
        return len(self.data) - self.at

    def byte(self, what: str) -> int:
        if self.at >= len(self.data):
            raise self.fail(f"ends before its {what}")
        value = self.data[self.at]
        self.at += 1
        return value

    def take(self, length: int, what: str) -> bytes:
        """The next ``length`` bytes; a length past the end is refused before anything is
        copied."""
        if length > self.remaining:
            raise self.fail(
                f"its {what} is {length:,} bytes long, but only {self.remaining:,} bytes are left"
            )
        start = self.at
        self.at += length
        return self.data[start : self.at]

    def fixed(self, size: int, what: str) -> int:
        """A little-endian unsigned integer of ``size`` bytes."""
        return int.from_bytes(self.take(size, what), "little")

    def varint(self, what: str, bits: int = 64) -> int:
        """A varint of at most ``bits`` bits (tensorstore reads 16-bit fields as 32-bit varints and
        then checks their range, as here)."""
        read_bits = 64 if bits == 64 else 32
        value, shift, start = 0, 0, self.at
        while True:
            if self.at >= len(self.data):
                raise self.fail(f"ends inside its {what} (a varint at byte {start})")
            byte = self.data[self.at]
            self.at += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                break
            shift += 7
            if shift >= read_bits:
                raise self.fail(f"its {what} is a varint longer than {read_bits} bits")
        if value >> bits:
            raise self.fail(f"its {what} ({value:,}) does not fit in {bits} bits")
        return value

    def count(self, what: str, each: int, limit: int | None = None) -> int:
        """A varint count of things that take at least ``each`` bytes apiece: refused when the bytes
        left cannot hold that many (so a declared count never sizes a list by itself), or past
        ``limit``."""
        value = self.varint(what)
        if limit is not None and value > limit:
            raise self.fail(f"its {what} ({value:,}) is more than the format allows ({limit:,})")
        if value * each > self.remaining:
            raise self.fail(
                f"its {what} ({value:,}) needs at least {value * each:,} bytes, "
                f"but only {self.remaining:,} are left"
            )
        return value

    def end(self, what: str) -> None:
        """Refuses bytes left after the last field, as tensorstore's ``VerifyEndAndClose`` does."""
        if self.remaining:
            plural = "s are" if self.remaining > 1 else " is"
            raise self.fail(f"{self.remaining:,} byte{plural} left after the {what}")
