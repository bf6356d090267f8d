"""Checkpoint index files for the tests, written the way TensorFlow writes them (a sorted string
table of bundle entries, tensorflow/core/lib/io/table_builder.cc and
tensorflow/core/util/tensor_bundle/tensor_bundle.cc), with the knobs the hostile tests turn: block
size, restart interval, snappy blocks, and the pieces (blocks, handles, footer) to break by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tpuemb_cli.load.checkpoint import OBJECT_GRAPH_KEY, VARIABLE_SUFFIX, escape
from tpuemb_cli.load.sstable import MAGIC, crc32c, mask
from tpuemb_cli.pb.framework import tensor_bundle_pb2, types_pb2

Shape = tuple[int, ...]
Slice = Sequence[tuple[int, int | None]]


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def block(entries: Sequence[tuple[bytes, bytes]], restart_interval: int = 16) -> bytes:
    """A block's contents: prefix-compressed entries, restart points, their count."""
    out, restarts, previous = bytearray(), [0], b""
    for number, (key, value) in enumerate(entries):
        shared = 0
        if number % restart_interval == 0:
            if number:
                restarts.append(len(out))
        else:
            while shared < min(len(key), len(previous)) and key[shared] == previous[shared]:
                shared += 1
        out += varint(shared) + varint(len(key) - shared) + varint(len(value))
        out += key[shared:] + value
        previous = key
    for restart in restarts:
        out += restart.to_bytes(4, "little")
    return bytes(out + len(restarts).to_bytes(4, "little"))


def trailer(contents: bytes, kind: int = 0) -> bytes:
    return bytes([kind]) + mask(crc32c(contents + bytes([kind]))).to_bytes(4, "little")


def handle(offset: int, size: int) -> bytes:
    return varint(offset) + varint(size)


def footer(metaindex: bytes, index: bytes) -> bytes:
    handles = metaindex + index
    return handles + bytes(40 - len(handles)) + MAGIC.to_bytes(8, "little")


def snappy(data: bytes) -> bytes:
    """A valid snappy stream for ``data``: repeats of 4 bytes or more as copies with a 2-byte
    offset (greedy, overlapping runs included), the rest as literals."""
    out = bytearray(varint(len(data)))
    seen: dict[bytes, int] = {}
    literal = at = 0
    while at + 4 <= len(data):
        quad = data[at : at + 4]
        start = seen.get(quad)
        seen[quad] = at
        if start is None or at - start > 0xFFFF:
            at += 1
            continue
        _literals(out, data[literal:at])
        length = 4
        while at + length < len(data) and length < 64 and data[start + length] == data[at + length]:
            length += 1
        out.append(((length - 1) << 2) | 2)
        out += (at - start).to_bytes(2, "little")
        at += length
        literal = at
    _literals(out, data[literal:])
    return bytes(out)


def _literals(out: bytearray, data: bytes) -> None:
    for at in range(0, len(data), 60):
        piece = data[at : at + 60]
        out.append((len(piece) - 1) << 2)
        out += piece


def table(
    entries: Iterable[tuple[bytes, bytes]],
    block_size: int = 4096,
    restart_interval: int = 16,
    compress: bool = False,
) -> bytes:
    """A whole table: data blocks of about ``block_size`` bytes, an empty metaindex block, the
    index block (each data block's last key and handle), the footer."""
    out = bytearray()
    index: list[tuple[bytes, bytes]] = []
    pending: list[tuple[bytes, bytes]] = []

    def write(contents: bytes) -> bytes:
        kind = 0
        if compress:
            contents, kind = snappy(contents), 1
        place = handle(len(out), len(contents))
        out.extend(contents + trailer(contents, kind))
        return place

    def finish() -> None:
        if pending:
            index.append((pending[-1][0], write(block(pending, restart_interval))))
            pending.clear()

    for key, value in entries:
        pending.append((key, value))
        if sum(len(k) + len(v) + 3 for k, v in pending) >= block_size:
            finish()
    finish()
    metaindex = write(block([]))
    index_handle = write(block(index, 1))
    return bytes(out + footer(metaindex, index_handle))


def header(num_shards: int = 1, min_consumer: int = 0) -> bytes:
    proto = tensor_bundle_pb2.BundleHeaderProto(num_shards=num_shards)
    proto.version.producer = 1
    proto.version.min_consumer = min_consumer
    return proto.SerializeToString()


def entry(shape: Shape, slices: Sequence[Slice] = (), dtype: int = types_pb2.DT_FLOAT) -> bytes:
    proto = tensor_bundle_pb2.BundleEntryProto(dtype=dtype)  # type: ignore[arg-type]
    for size in shape:
        proto.shape.dim.add(size=size)
    for piece in slices:
        extents = proto.slices.add()
        for start, length in piece:
            extent = extents.extent.add(start=start)
            if length is not None:
                extent.length = length
    return proto.SerializeToString()


def bundle(
    variables: Mapping[str, Shape],
    slices: Mapping[str, Sequence[Slice]] | None = None,
    object_based: bool = True,
    num_shards: int = 1,
    min_consumer: int = 0,
) -> list[tuple[bytes, bytes]]:
    """The sorted entries of a bundle holding ``variables`` (name -> full shape); a variable of
    ``slices`` lists them and gets one NUL-keyed entry per slice, as TensorFlow writes them."""
    entries = {b"": header(num_shards, min_consumer)}
    if object_based:
        entries[OBJECT_GRAPH_KEY.encode()] = entry((), dtype=types_pb2.DT_STRING)
    for name, shape in variables.items():
        pieces = (slices or {}).get(name, ())
        entries[name.encode()] = entry(shape, pieces)
        for number, _ in enumerate(pieces):
            entries[b"\0" + name.encode() + bytes([number])] = entry(())
    return sorted(entries.items())


def key(holder: str, *local: str) -> str:
    """An object-based checkpoint's key for the variable at ``holder``/``local``..."""
    parts = [escape(name) for name in local]
    return "/".join([holder, *parts] if holder else parts) + VARIABLE_SUFFIX


def embedding(
    tables: Mapping[str, Shape], slots: Mapping[str, Sequence[str]], holder: str = "embedding"
) -> dict[str, Shape]:
    """The variables the mid-level API saves for ``tables`` (name -> shape) with the slots of
    ``slots`` (name -> slot names) under ``holder``."""
    found = {key(holder, name): shape for name, shape in tables.items()}
    for name, names in slots.items():
        found.update({key(holder, f"{name}/{slot}"): tables[name] for slot in names})
    return found


def save(index: Path, entries: list[tuple[bytes, bytes]], missing: Sequence[int] = ()) -> None:
    """Writes ``entries`` (``bundle``'s) as the checkpoint ``index`` (``PREFIX.index``) and the
    data files their entries read (each as long as they reach), as TensorFlow's saver leaves
    them; the shards of ``missing`` are left out."""
    index.write_bytes(table(entries))
    header = tensor_bundle_pb2.BundleHeaderProto.FromString(dict(entries)[b""])
    reach: dict[int, int] = {}
    for key, value in entries:
        if key:
            proto = tensor_bundle_pb2.BundleEntryProto.FromString(value)
            if not proto.slices:
                reach[proto.shard_id] = max(reach.get(proto.shard_id, 0), proto.offset + proto.size)
    prefix = index.name[: -len(".index")]
    for shard, size in reach.items():
        if shard not in missing:
            data = index.with_name(f"{prefix}.data-{shard:05d}-of-{header.num_shards:05d}")
            data.write_bytes(bytes(size))


def placed(entries: list[tuple[bytes, bytes]], num_shards: int) -> list[tuple[bytes, bytes]]:
    """``entries`` with their bytes placed as a saver places them: each tensor's float32 bytes
    after the previous one's in its data file, the tensors dealt over ``num_shards`` files."""
    ends = [0] * num_shards
    out = []
    for number, (key, value) in enumerate(entries):
        proto = tensor_bundle_pb2.BundleEntryProto.FromString(value)
        if key and not proto.slices:
            size = 4
            for dim in proto.shape.dim:
                size *= dim.size
            proto.shard_id = number % num_shards
            proto.offset, proto.size = ends[proto.shard_id], size
            ends[proto.shard_id] += size
            value = proto.SerializeToString()
        out.append((key, value))
    return out
