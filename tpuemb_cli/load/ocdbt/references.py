"""Data file tables and the references into them: where the nodes and out-of-line values of an
OCDBT store are.

A data file table (``data_file_id_codec.cc``, ``ReadDataFileTable``) lists the data files a record
references, as prefix-compressed paths: a varint count, then in columns the prefix each path
shares with the one before (count - 1 varints), each path's suffix length, each path's base path
length, and the suffixes. A file's path relative to the store is ``transitive + path``, where
``transitive`` is the base path of the file the record itself was read from (empty for the
manifest): the part of a path that a node's children inherit.

A reference (``indirect_data_reference_codec.h``) is a data file (a varint index into the table),
an offset and a length, each written as a column over all the record's references.
"""

from __future__ import annotations

from typing import NamedTuple

from tpuemb_cli.load.ocdbt.cursor import Cursor

# data_file_id.h: kMaxPathLength.
MAX_PATH_LENGTH = 65535
# tensorstore refuses an offset + length past the largest int64 (IndirectDataReference::Validate).
_MAX_END = 2**63 - 1
# An absent reference (an empty tree's root): offset and length both the largest uint64.
_MISSING = 2**64 - 1


class DataFile(NamedTuple):
    """A data file: ``base_path + relative_path`` is its path in the store; ``base_path`` is what
    the records read from it inherit."""

    base_path: bytes
    relative_path: bytes

    @property
    def path(self) -> bytes:
        return self.base_path + self.relative_path


class Reference(NamedTuple):
    """``length`` bytes at ``offset`` of ``file``."""

    file: DataFile
    offset: int
    length: int

    @property
    def missing(self) -> bool:
        return self.offset == _MISSING and self.length == _MISSING


def read_table(cursor: Cursor, transitive: bytes) -> list[DataFile]:
    """The data file table at the cursor."""
    # Each file takes at least two bytes: its suffix length and its base path length.
    count = cursor.count("number of data files", each=2)
    prefixes = [0] + [cursor.varint("data file path prefix length", 16) for _ in range(count - 1)]
    suffixes = [cursor.varint("data file path suffix length", 16) for _ in range(count)]
    bases = [cursor.varint("data file base path length", 16) for _ in range(count)]
    limit = MAX_PATH_LENGTH - len(transitive)
    files: list[DataFile] = []
    previous, previous_base = b"", 0
    for index in range(count):
        prefix, base = prefixes[index], bases[index]
        if prefix > len(previous):
            raise cursor.fail(
                f"data file {index}'s path shares {prefix} bytes with the one before, which is "
                f"{len(previous)} bytes long"
            )
        if prefix + suffixes[index] > limit:
            raise cursor.fail(
                f"data file {index}'s path is {prefix + suffixes[index]:,} bytes long, more than "
                f"{limit:,}"
            )
        if base > prefix + suffixes[index]:
            raise cursor.fail(f"data file {index}'s base path is longer than its path")
        if prefix > min(previous_base, base) and base != previous_base:
            raise cursor.fail(
                f"data file {index}'s path shares more than its base path with the one before, "
                "whose base path differs"
            )
        path = previous[:prefix] + cursor.take(suffixes[index], f"data file {index}'s path")
        files.append(DataFile(transitive + path[:base], path[base:]))
        previous, previous_base = path, base
    return files


def read_references(
    cursor: Cursor,
    files: list[DataFile],
    lengths: list[int] | None,
    count: int,
    what: str,
    allow_missing: bool = False,
) -> list[Reference]:
    """``count`` references in columns: data files, offsets, and lengths unless ``lengths`` are
    given (a leaf's out-of-line values, whose lengths its value lengths column already gave). Only
    a version's root may be missing (an empty tree)."""
    indexes = [cursor.varint(f"{what}'s data file") for _ in range(count)]
    for index in indexes:
        if index >= len(files):
            raise cursor.fail(
                f"a {what} names data file {index:,}, but the table lists {len(files):,}"
            )
    offsets = [cursor.varint(f"{what}'s offset") for _ in range(count)]
    if lengths is None:
        lengths = [cursor.varint(f"{what}'s length") for _ in range(count)]
    references = []
    for index, offset, length in zip(indexes, offsets, lengths, strict=True):
        reference = Reference(files[index], offset, length)
        if offset + length > _MAX_END and not (allow_missing and reference.missing):
            raise cursor.fail(f"a {what} at offset {offset:,} of length {length:,} is invalid")
        references.append(reference)
    return references
