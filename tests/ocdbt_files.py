"""OCDBT stores for the tests, written the way tensorstore writes them (the encoders of
tensorstore/kvstore/ocdbt/format/: codec_util.cc, data_file_id_codec.cc, btree_node_encoder.cc,
manifest.cc, version_tree_codec.h), with the knobs the hostile tests turn. The fixtures' Orbax
stores have one leaf node each and inline .zarray values; these stores add what they lack:
interior nodes, subtree prefixes, base paths inherited by children, and .zarray values out of
line. tests/test_orbax_store.py checks that a leaf written here is byte for byte the one
tensorstore wrote in the fixtures.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import zstandard

from tpuemb_cli.load.ocdbt.envelope import BTREE_NODE_MAGIC, MANIFEST_MAGIC
from tpuemb_cli.load.sstable import crc32c

File = tuple[bytes, bytes]  # (base_path, relative_path)


class Ref(NamedTuple):
    file: File
    offset: int
    length: int


class Child(NamedTuple):
    key: bytes  # relative to the node's implicit prefix
    common: int  # subtree_common_prefix_length
    node: Ref


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if not value:
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


def envelope(magic: int, body: bytes, compress: bool = True, content_size: bool = True) -> bytes:
    """A record: header, the body (zstd-compressed unless ``compress`` is false), CRC-32C."""
    if compress:
        body = zstandard.ZstdCompressor(write_content_size=content_size).compress(body)
        body = varint(0) + varint(1) + body
    else:
        body = varint(0) + varint(0) + body
    length = 4 + 8 + len(body) + 4
    head = magic.to_bytes(4, "big") + length.to_bytes(8, "little")
    return head + body + crc32c(head + body).to_bytes(4, "little")


def _common(a: bytes, b: bytes) -> int:
    length = 0
    while length < min(len(a), len(b)) and a[length] == b[length]:
        length += 1
    return length


def file_table(files: Sequence[File]) -> tuple[bytes, dict[File, int]]:
    """The encoded table of ``files`` (sorted, prefix-compressed as DataFileTableBuilder does) and
    each file's index."""
    ordered = sorted(set(files))
    prefixes = [0] if ordered else []
    for previous, current in itertools.pairwise(ordered):
        prefix = _common(previous[0], current[0])
        if len(previous[0]) == len(current[0]) == prefix:
            prefix += _common(previous[1], current[1])
        prefixes.append(prefix)
    out = bytearray(varint(len(ordered)))
    for prefix in prefixes[1:]:
        out += varint(prefix)
    for (base, relative), prefix in zip(ordered, prefixes, strict=True):
        out += varint(len(base) + len(relative) - prefix)
    for base, _ in ordered:
        out += varint(len(base))
    for (base, relative), prefix in zip(ordered, prefixes, strict=True):
        out += (base + relative)[prefix:]
    return bytes(out), {file: index for index, file in enumerate(ordered)}


def _keys(keys: Sequence[bytes], commons: Sequence[int] | None) -> bytes:
    out = bytearray()
    for previous, key in itertools.pairwise(keys):
        out += varint(_common(previous, key))
    shared = [0] + [_common(a, b) for a, b in itertools.pairwise(keys)]
    for key, prefix in zip(keys, shared, strict=True):
        out += varint(len(key) - prefix)
    for common in commons or ():
        out += varint(common)
    for key, prefix in zip(keys, shared, strict=True):
        out += key[prefix:]
    return bytes(out)


def leaf_body(entries: Sequence[tuple[bytes, bytes | Ref]]) -> bytes:
    """The decompressed body of a leaf node holding ``entries`` (key, inline value or reference)."""
    refs = [value for _, value in entries if isinstance(value, Ref)]
    table, index = file_table([ref.file for ref in refs])
    out = bytearray(b"\0" + table + varint(len(entries)))
    out += _keys([key for key, _ in entries], None)
    for _, value in entries:
        out += varint(value.length if isinstance(value, Ref) else len(value))
    for _, value in entries:
        out += b"\1" if isinstance(value, Ref) else b"\0"
    for ref in refs:
        out += varint(index[ref.file])
    for ref in refs:
        out += varint(ref.offset)
    for _, value in entries:
        if isinstance(value, bytes):
            out += value
    return bytes(out)


def interior_body(height: int, children: Sequence[Child]) -> bytes:
    """The decompressed body of an interior node of ``height``."""
    table, index = file_table([child.node.file for child in children])
    out = bytearray(bytes([height]) + table + varint(len(children)))
    out += _keys([child.key for child in children], [child.common for child in children])
    for child in children:
        out += varint(index[child.node.file])
    for child in children:
        out += varint(child.node.offset)
    for child in children:
        out += varint(child.node.length)
    out += varint(1) * (3 * len(children))  # statistics, which readers need not check
    return bytes(out)


def manifest_body(root: Ref | None, root_height: int, generation: int = 1, kind: int = 0) -> bytes:
    """A single-file manifest whose one version has ``root`` (``None``: an empty tree)."""
    config = bytes(16) + bytes([kind]) + varint(100) + varint(8 << 20) + bytes([4]) + varint(1)
    config += (1).to_bytes(4, "little", signed=True)
    if kind != 0:
        return config
    # An empty tree's root is a missing reference: offset and length the largest uint64, and a
    # data file of no path (tensorstore adds it to the table like any other).
    root = root or Ref((b"", b""), 2**64 - 1, 2**64 - 1)
    table, index = file_table([root.file])
    out = bytearray(config + table + varint(1) + varint(generation) + bytes([root_height]))
    out += varint(index[root.file]) + varint(root.offset) + varint(root.length)
    out += varint(0) * 3 + (1).to_bytes(8, "little")
    out += varint(0)  # no version tree nodes
    return bytes(out)


def write_store(
    directory: Path, root: Ref | None, root_height: int, blobs: dict[str, bytes], **manifest: int
) -> Path:
    """A store in ``directory``: its manifest and the data files ``blobs`` (path -> bytes)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in blobs.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data)
    body = manifest_body(root, root_height, **manifest)
    (directory / "manifest.ocdbt").write_bytes(envelope(MANIFEST_MAGIC, body))
    return directory


def leaf_store(directory: Path, entries: Sequence[tuple[bytes, bytes | Ref]]) -> Path:
    """A store whose tree is one leaf of ``entries``, in ``d/root``."""
    node = envelope(BTREE_NODE_MAGIC, leaf_body(entries))
    return write_store(directory, Ref((b"", b"d/root"), 0, len(node)), 0, {"d/root": node})
