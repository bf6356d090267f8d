"""One scalar string tensor of a checkpoint, read from its data file: TPUEmbeddingV2's
``_sparse_core_table_layouts`` (the layouts a SparseCore checkpoint was saved with), without
TensorFlow.

The index's ``BundleEntryProto`` says which data file holds the tensor, where and how many
bytes; a string tensor is written as each element's length (varint64), a masked CRC32C of those
lengths (4 bytes: each length as a little-endian uint32, checksummed in turn), then the
elements' bytes (``WriteStringTensor`` in
tensorflow/core/util/tensor_bundle/tensor_bundle.cc, v2.21.0:
https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/util/tensor_bundle/tensor_bundle.cc).
Every length is checked against the entry's size and the entry's size against a bound: a
corrupt or hostile checkpoint is a one-line error, never a traceback or an unbounded read.
"""

from __future__ import annotations

from pathlib import Path

from google.protobuf.message import DecodeError

from tpuemb_cli.load.checkpoint import Checkpoint, UnreadableCheckpoint
from tpuemb_cli.load.sstable import Table, TableError, crc32c, mask, varint
from tpuemb_cli.pb.framework import tensor_bundle_pb2, types_pb2

# The largest string tensor read: layouts take about 100 bytes a table, so this is a million
# tables.
MAX_STRING_BYTES = 128 * 1024 * 1024


def read_string(checkpoint: Checkpoint, key: str) -> bytes:
    """The bytes of the scalar string tensor ``key`` of ``checkpoint``. Raises
    UnreadableCheckpoint (naming the file) for anything else."""
    name = checkpoint.path
    entry = _entry(checkpoint, key)
    if entry.dtype != types_pb2.DT_STRING or entry.shape.dim or entry.slices:
        raise UnreadableCheckpoint(f"{name}: `{key}` is not a scalar string tensor")
    if entry.size < 5 or entry.size > MAX_STRING_BYTES or entry.offset < 0:
        raise UnreadableCheckpoint(
            f"{name}: the entry of `{key}` has {entry.size} bytes at offset {entry.offset}: not "
            "a string tensor tpuemb reads"
        )
    path = checkpoint.data_file(entry.shard_id)
    try:
        with path.open("rb") as data:
            data.seek(entry.offset)
            raw = data.read(entry.size)
    except OSError as error:
        raise UnreadableCheckpoint(f"{name}: cannot read {path} ({error.strerror})") from None
    if len(raw) != entry.size:
        raise UnreadableCheckpoint(f"{name}: {path} ends inside `{key}`: a truncated checkpoint")
    try:
        length, at = varint(raw, 0, len(raw), 64, f"the length of `{key}`")
    except TableError as error:
        raise UnreadableCheckpoint(f"{name}: {error}") from None
    stored = int.from_bytes(raw[at : at + 4], "little")
    lengths = (length & 0xFFFFFFFF).to_bytes(4, "little")
    if stored != mask(crc32c(lengths)) or at + 4 + length != len(raw):
        raise UnreadableCheckpoint(
            f"{name}: `{key}` in {path} is corrupt (its length or its checksum is wrong)"
        )
    return raw[at + 4 :]


def _entry(checkpoint: Checkpoint, key: str) -> tensor_bundle_pb2.BundleEntryProto:
    """The index entry of ``key``, read again from the index (``load.checkpoint`` keeps only
    names, dtypes and shapes)."""
    name = checkpoint.path
    try:
        data = Path(name).read_bytes()
    except OSError as error:
        raise UnreadableCheckpoint(f"{name}: cannot be read ({error.strerror})") from None
    wanted = key.encode("utf-8")
    try:
        for found, value in Table(data).items():
            if found == wanted:
                entry = tensor_bundle_pb2.BundleEntryProto()
                entry.ParseFromString(value)
                return entry
    except (TableError, DecodeError) as error:
        raise UnreadableCheckpoint(f"{name}: not a readable checkpoint index: {error}") from None
    raise UnreadableCheckpoint(f"{name}: holds no `{key}`")
