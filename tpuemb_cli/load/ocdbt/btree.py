"""The B+tree of one OCDBT version, walked from its root to every key, in order.

A node (``btree.cc``, ``DecodeBtreeNode``; ``btree_codec.h``), in the envelope of ``envelope``:
its height (a byte; leaves are 0), a data file table, a varint entry count, then the keys in
columns: for every key but the first the length of the prefix it shares with the key before,
every key's suffix length, for an interior node every child's ``subtree_common_prefix_length``,
and the suffixes. Keys are relative: a node's keys follow the prefix its parent gave it, and a
child's prefix is its parent's plus the first ``subtree_common_prefix_length`` bytes of its
entry's key (``non_distributed/list.cc``, ``VisitSubtree``).

- An interior node then has its children's references (data files, offsets, lengths) and three
  statistics per child, which are not needed.
- A leaf has every value's length, every value's kind (a byte: 0 inline, 1 out of line), the data
  files and offsets of the out-of-line values, and the inline values themselves.

Bounds: a node's height must be its parent's less one and the root's at most ``MAX_HEIGHT``; a
node has 1 to 1,048,576 entries (``kMaxNodeArity``), an inline value at most 1 MiB
(``kMaxInlineValueLength``), a key at most 65,535 bytes (``kMaxKeyLength``); keys must increase
within a node and across the walk, and a child's first key must not sort before its entry's; a
node referenced twice is refused (so a hostile DAG cannot make the walk repeat itself); at most
``MAX_NODES`` nodes are read, decompressing to at most ``MAX_DECODED_TOTAL`` bytes together.
Values out of line are returned as references, never read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from tpuemb_cli.load.ocdbt.cursor import Cursor, UnreadableStore
from tpuemb_cli.load.ocdbt.envelope import BTREE_NODE_MAGIC, open_record
from tpuemb_cli.load.ocdbt.files import StoreFiles
from tpuemb_cli.load.ocdbt.manifest import Version
from tpuemb_cli.load.ocdbt.references import DataFile, Reference, read_references, read_table

# The tallest tree read. A tree of 1,048,576-entry nodes this tall would hold more keys than any
# store; tensorstore's own limit is the byte a height is written in.
MAX_HEIGHT = 32
# The most nodes one walk reads: a store of tens of millions of keys.
MAX_NODES = 100_000
# What the walk's nodes may decompress to together (each at most envelope.MAX_DECODED_BYTES): as
# files.MAX_TOTAL_BYTES bounds what is read, this bounds what is decoded.
MAX_DECODED_TOTAL = 256 * 1024 * 1024
MAX_NODE_ARITY = 1024 * 1024
MAX_INLINE_VALUE_BYTES = 1024 * 1024
MAX_KEY_LENGTH = 65535
_INLINE, _OUT_OF_LINE = 0, 1


class Entry(NamedTuple):
    """A key of the store and its value: the bytes when inline, else where they are."""

    key: bytes
    value: bytes | Reference


class _Pending(NamedTuple):
    node: Reference
    height: int
    prefix: bytes  # the implicit prefix of the node's keys
    minimum: bytes  # its first key must not sort before this (full) key


def walk(files: StoreFiles, version: Version, manifest: str) -> Iterator[Entry]:
    """Every entry of ``version``'s tree, in key order; ``manifest`` names where the version was
    read, for messages."""
    if version.root.missing:
        return
    if version.root_height > MAX_HEIGHT:
        raise UnreadableStore(
            f"{manifest}: the latest version's tree is {version.root_height} levels tall; "
            f"at most {MAX_HEIGHT} are read"
        )
    waiting = [_Pending(version.root, version.root_height, b"", b"")]
    visited: set[tuple[bytes, int, int]] = set()
    last: bytes | None = None
    decoded = 0
    while waiting:
        pending = waiting.pop()
        node = pending.node
        place = (node.file.path, node.offset, node.length)
        if place in visited:
            # A tree reaches each node once: a node referenced again (under keys its relative
            # prefix lets differ) would make the walk repeat it, as often as a DAG cares to.
            raise UnreadableStore(
                f"{files.name(_shown(node.file.path))}: the B+tree node at bytes {node.offset:,} "
                "is referenced twice; refused (a tree's nodes have one parent)"
            )
        visited.add(place)
        if len(visited) > MAX_NODES:
            raise UnreadableStore(f"{manifest}: the tree has more than {MAX_NODES:,} nodes")
        cursor = _open_node(files, pending)
        decoded += len(cursor.data)
        if decoded > MAX_DECODED_TOTAL:
            raise cursor.fail(
                f"the tree's nodes decompress to more than {MAX_DECODED_TOTAL:,} bytes; refused"
            )
        if pending.height > 0:
            waiting.extend(reversed(_children(cursor, pending)))
            continue
        for entry in _leaf(cursor, pending):
            if last is not None and entry.key <= last:
                raise cursor.fail(f"its key {entry.key!r} does not sort after {last!r}")
            last = entry.key
            yield entry


def _open_node(files: StoreFiles, pending: _Pending) -> Cursor:
    reference = pending.node
    encoded = files.read(reference.file.path, reference.offset, reference.length, "B+tree node")
    where = (
        f"{files.name(_shown(reference.file.path))} (the B+tree node "
        f"at bytes {reference.offset:,} to {reference.offset + reference.length:,})"
    )
    cursor = open_record(encoded, BTREE_NODE_MAGIC, "B+tree node", where)
    height = cursor.byte("height")
    if height != pending.height:
        raise cursor.fail(f"the node's height is {height}, but its parent says {pending.height}")
    return cursor


def _shown(path: bytes) -> str:
    return path.decode("utf-8", "backslashreplace")


def _header(cursor: Cursor, pending: _Pending) -> tuple[list[DataFile], int]:
    files = read_table(cursor, pending.node.file.base_path)
    count = cursor.count("number of entries", each=1, limit=MAX_NODE_ARITY)
    if count == 0:
        raise cursor.fail("is an empty B+tree node (tensorstore never writes one)")
    return files, count


def _keys(cursor: Cursor, count: int, interior: bool) -> tuple[list[bytes], list[int]]:
    """The node's (relative) keys and, for an interior node, the ``subtree_common_prefix_length``
    of each."""
    shared = [0] + [cursor.varint("key prefix length", 16) for _ in range(count - 1)]
    suffixes = [cursor.varint("key suffix length", 16) for _ in range(count)]
    common = [
        cursor.varint("subtree common prefix length", 16) for _ in range(count if interior else 0)
    ]
    keys: list[bytes] = []
    previous = b""
    for index in range(count):
        if shared[index] > len(previous):
            raise cursor.fail(
                f"key {index} shares {shared[index]} bytes with the key before, which is "
                f"{len(previous)} bytes long"
            )
        if shared[index] + suffixes[index] > MAX_KEY_LENGTH:
            raise cursor.fail(f"key {index} is longer than {MAX_KEY_LENGTH:,} bytes")
        key = previous[: shared[index]] + cursor.take(suffixes[index], f"key {index}")
        if index and key <= previous:
            raise cursor.fail(f"key {index} does not sort after the key before (invalid key order)")
        if interior and common[index] > len(key):
            raise cursor.fail(
                f"child {index}'s subtree common prefix ({common[index]} bytes) is longer than its "
                "key"
            )
        keys.append(key)
        previous = key
    return keys, common


def _check_first(cursor: Cursor, pending: _Pending, first: bytes) -> None:
    if pending.prefix + first < pending.minimum:
        raise cursor.fail(
            f"its first key {pending.prefix + first!r} sorts before {pending.minimum!r}, where its "
            "parent puts it"
        )


def _children(cursor: Cursor, pending: _Pending) -> list[_Pending]:
    files, count = _header(cursor, pending)
    keys, common = _keys(cursor, count, interior=True)
    _check_first(cursor, pending, keys[0])
    nodes = read_references(cursor, files, None, count, "child node")
    for _ in range(3 * count):
        cursor.varint("child statistic")
    cursor.end("B+tree node's entries")
    return [
        _Pending(node, pending.height - 1, pending.prefix + key[:shared], pending.prefix + key)
        for node, key, shared in zip(nodes, keys, common, strict=True)
    ]


def _leaf(cursor: Cursor, pending: _Pending) -> list[Entry]:
    files, count = _header(cursor, pending)
    keys, _ = _keys(cursor, count, interior=False)
    _check_first(cursor, pending, keys[0])
    lengths = [cursor.varint("value length") for _ in range(count)]
    kinds = [cursor.byte("value kind") for _ in range(count)]
    out_of_line = []
    for index, (kind, length) in enumerate(zip(kinds, lengths, strict=True)):
        if kind == _OUT_OF_LINE:
            out_of_line.append(index)
        elif kind != _INLINE:
            raise cursor.fail(f"value {index}'s kind is {kind}, neither 0 (inline) nor 1")
        elif length > MAX_INLINE_VALUE_BYTES:
            raise cursor.fail(
                f"value {index} is {length:,} bytes inline, more than {MAX_INLINE_VALUE_BYTES:,}"
            )
    references = read_references(
        cursor, files, [lengths[index] for index in out_of_line], len(out_of_line), "value"
    )
    values: list[bytes | Reference] = []
    remote = iter(references)
    for index, kind in enumerate(kinds):
        if kind == _OUT_OF_LINE:
            values.append(next(remote))
        else:
            values.append(cursor.take(lengths[index], f"value {index}"))
    cursor.end("B+tree node's values")
    return [Entry(pending.prefix + key, value) for key, value in zip(keys, values, strict=True)]
