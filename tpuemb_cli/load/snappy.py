"""Snappy decompression (the raw format, without framing), for the compressed blocks of a
checkpoint index.

TensorFlow 2.x writes its indexes uncompressed, but TensorFlow 1.x wrote snappy blocks where they
saved an eighth or more (``table_builder.cc``), and SavedModels of that time are still served:
``tests/data/real-repo``'s ``half_plus_two`` is one. The format (google/snappy,
``format_description.txt``): a varint32, the uncompressed length, then elements, each a tag byte
whose two low bits say what follows:

- ``00`` a literal: its length minus one is the tag's six high bits, or, for 60 to 63, held in the
  next 1 to 4 bytes (little-endian); then the literal's bytes;
- ``01`` a copy of 4 to 11 bytes (three bits of the tag) from an offset of 11 bits (three bits of
  the tag and the next byte);
- ``10`` and ``11`` a copy of 1 to 64 bytes (the tag's six high bits) from an offset held in the
  next 2 or 4 bytes.

A copy reads back from what is already written, and may overlap what it writes (a run). Every
length and offset is checked: a corrupt block is a ``SnappyError``, and the output never grows
past the length the stream declares, which the caller bounds.
"""

from __future__ import annotations


class SnappyError(ValueError):
    """The bytes are not a valid snappy stream."""


def uncompressed_length(data: bytes) -> tuple[int, int]:
    """The length the stream declares, and where its elements start."""
    value, shift = 0, 0
    for at in range(min(len(data), 5)):
        byte = data[at]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if value >> 32:
                break
            return value, at + 1
        shift += 7
    raise SnappyError("a malformed uncompressed length")


def decompress(data: bytes, limit: int) -> bytes:
    """The bytes ``data`` decompresses to; refuses a stream that declares more than ``limit``."""
    length, at = uncompressed_length(data)
    if length > limit:
        raise SnappyError(f"declares {length} uncompressed bytes, more than the {limit} allowed")
    out = bytearray()
    end = len(data)
    while at < end:
        tag = data[at]
        at += 1
        kind = tag & 3
        if kind == 0:
            size = tag >> 2
            if size >= 60:
                extra = size - 59
                if at + extra > end:
                    raise SnappyError("a literal's length runs past the end")
                size = int.from_bytes(data[at : at + extra], "little")
                at += extra
            size += 1
            if at + size > end:
                raise SnappyError(f"a literal of {size} bytes runs past the end")
            if len(out) + size > length:
                raise SnappyError(f"more than the {length} bytes declared")
            out += data[at : at + size]
            at += size
            continue
        if kind == 1:
            if at >= end:
                raise SnappyError("a copy's offset runs past the end")
            size = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | data[at]
            at += 1
        else:
            width = 2 if kind == 2 else 4
            if at + width > end:
                raise SnappyError("a copy's offset runs past the end")
            size = (tag >> 2) + 1
            offset = int.from_bytes(data[at : at + width], "little")
            at += width
        if offset == 0 or offset > len(out):
            raise SnappyError(f"a copy from offset {offset} with {len(out)} bytes written")
        if len(out) + size > length:
            raise SnappyError(f"more than the {length} bytes declared")
        start = len(out) - offset
        if offset >= size:
            out += out[start : start + size]
        else:  # a run: the copy reads bytes it writes
            pattern = bytes(out[start:])
            out += (pattern * (size // offset + 1))[:size]
    if len(out) != length:
        raise SnappyError(f"{len(out)} bytes where {length} were declared")
    return bytes(out)
