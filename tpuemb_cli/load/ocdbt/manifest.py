"""An OCDBT manifest, read for one thing: the root of the B+tree of the store's latest version.

``manifest.cc`` (``DecodeManifest``), in the envelope of ``envelope``:

- the configuration (``config_codec.h``): a 16-byte uuid, the manifest kind (a byte: 0 single,
  1 numbered), ``max_inline_value_bytes`` and ``max_decoded_node_bytes`` (varints),
  ``version_tree_arity_log2`` (a byte, 1 to 16), the compression method (a varint) and, for zstd,
  its level (an int32);
- for a single-file manifest (what Orbax writes on a file system), a data file table, the latest
  versions (``version_tree_codec.h``, ``VersionTreeLeafNodeEntryArrayCodec``: a count, then in
  columns generation numbers, root heights, root references, three statistics, commit times)
  and references to version tree nodes that hold the older versions (``version_nodes``).

The last of the inline versions is the latest (generation numbers increase), and it is the one
read. The version tree nodes, and with them every older version, are parsed past but never
followed. A numbered manifest keeps its versions in other files (``manifest.<16 hex digits>``);
it is refused with a message rather than read.
"""

from __future__ import annotations

from typing import NamedTuple

from tpuemb_cli.load.ocdbt.cursor import Cursor
from tpuemb_cli.load.ocdbt.references import DataFile, Reference, read_references, read_table

_SINGLE, _NUMBERED = 0, 1
_MAX_ARITY_LOG2 = 16  # version_tree.h: kMaxVersionTreeArityLog2
_ZSTD_LEVELS = range(-(1 << 17), 23)  # riegeli's ZstdWriter: kMinCompressionLevel to kMax...
_UUID_BYTES = 16


class Version(NamedTuple):
    """A version of the store: its generation number and its B+tree's root (``root.missing``
    when the tree is empty) and height."""

    generation: int
    root: Reference
    root_height: int


def latest_version(cursor: Cursor) -> Version:
    """The latest version the manifest at the cursor (its body, decompressed) lists."""
    cursor.take(_UUID_BYTES, "uuid")
    kind = cursor.byte("manifest kind")
    if kind == _NUMBERED:
        raise cursor.fail(
            "is a numbered manifest (its versions are in manifest.<generation> files), which "
            "tpuemb does not read; Orbax writes single-file manifests"
        )
    if kind != _SINGLE:
        raise cursor.fail(f"its manifest kind is {kind}, neither 0 (single) nor 1 (numbered)")
    cursor.varint("max_inline_value_bytes", 32)
    cursor.varint("max_decoded_node_bytes", 32)
    arity_log2 = cursor.byte("version_tree_arity_log2")
    if not 1 <= arity_log2 <= _MAX_ARITY_LOG2:
        raise cursor.fail(f"its version_tree_arity_log2 is {arity_log2}, not in [1, 16]")
    method = cursor.varint("compression method", 32)
    if method == 1:
        level = int.from_bytes(cursor.take(4, "zstd level"), "little", signed=True)
        if level not in _ZSTD_LEVELS:
            raise cursor.fail(f"its zstd level, {level}, is not a zstd level")
    elif method != 0:
        raise cursor.fail(f"its compression method is {method}, neither 0 (none) nor 1 (zstd)")
    files = read_table(cursor, b"")
    latest = _read_versions(cursor, files, arity_log2)
    _skip_version_nodes(cursor, files, arity_log2)
    cursor.end("version tree")
    return latest


def _read_versions(cursor: Cursor, files: list[DataFile], arity_log2: int) -> Version:
    # Each version takes at least 14 bytes: five varints, a height byte and an 8-byte time.
    count = cursor.count("number of versions", each=14, limit=1 << arity_log2)
    if count == 0:
        raise cursor.fail("lists no version (tensorstore writes at least one)")
    generations = [cursor.varint("generation number") for _ in range(count)]
    heights = [cursor.byte("root height") for _ in range(count)]
    roots = read_references(cursor, files, None, count, "version root", allow_missing=True)
    for _ in range(3 * count):
        cursor.varint("version statistic")
    cursor.take(8 * count, "commit time column")
    previous = 0
    for generation in generations:
        if generation <= previous:
            raise cursor.fail(
                f"its generation numbers are not positive and increasing ({generation:,} follows "
                f"{previous:,})"
            )
        previous = generation
    if count > (generations[-1] - 1) % (1 << arity_log2) + 1:
        raise cursor.fail(
            f"lists {count} versions, more than generation {generations[-1]:,} allows inline"
        )
    return Version(generations[-1], roots[-1], heights[-1])


def _skip_version_nodes(cursor: Cursor, files: list[DataFile], arity_log2: int) -> None:
    # version_tree.h: GetMaxVersionTreeHeight.
    most = 63 // arity_log2 - 1
    count = cursor.count("number of version tree nodes", each=14, limit=most)
    for _ in range(count):
        cursor.varint("version node generation number")
    read_references(cursor, files, None, count, "version tree node")
    for _ in range(count):
        cursor.varint("version node generation count")
    cursor.take(8 * count, "version node commit time column")
    cursor.take(count, "version node height column")
