"""The ``.zarray`` records of an Orbax checkpoint item, read from its OCDBT store without
tensorstore: each array's global shape, dtype and chunk shape, which Orbax (0.12.8) writes
nowhere else (``tests/data/orbax/README.md``).

Orbax writes each item (``params/``, or a ``StandardCheckpointer`` directory) as a tensorstore
OCDBT key-value store: ``manifest.ocdbt`` and ``d/<random>`` at the item directory (a root that
merges the processes' stores) and one store per process, ``ocdbt.process_<i>/`` (its own
``manifest.ocdbt`` and ``d/``). Every array is a zarr v2 array under the key prefix of its dotted
parameter name: ``user_item.table/.zarray`` (JSON: ``shape``, ``dtype`` such as ``"<f4"``,
``chunks``, ``compressor``, ...) and its chunks, ``user_item.table/0.0``, ...

A store is read as tensorstore reads it, from the manifest to the latest version's B+tree root
and down to every leaf (``tpuemb_cli/load/ocdbt/``; each module names the part of the format it
follows). The sources, read at tensorstore's tag v0.1.85 (the newest tag of google/tensorstore
to hand when this was written; the fixtures in tests/data/orbax were written by tensorstore
0.1.86, with version 0 of every record, and the tests read them):

- the format's specification, the "Storage format" section of
  https://github.com/google/tensorstore/blob/v0.1.85/tensorstore/kvstore/ocdbt/index.rst
- the envelope of every record (magic, length, version, compression, CRC-32C):
  https://github.com/google/tensorstore/blob/v0.1.85/tensorstore/kvstore/ocdbt/format/codec_util.cc
- the manifest and its configuration:
  https://github.com/google/tensorstore/blob/v0.1.85/tensorstore/kvstore/ocdbt/format/manifest.cc
  and .../format/config_codec.cc
- the versions listed in the manifest:
  https://github.com/google/tensorstore/blob/v0.1.85/tensorstore/kvstore/ocdbt/format/version_tree_codec.h
  and .../format/version_tree.cc
- data file tables:
  https://github.com/google/tensorstore/blob/v0.1.85/tensorstore/kvstore/ocdbt/format/data_file_id_codec.cc
- references into data files:
  https://github.com/google/tensorstore/blob/v0.1.85/tensorstore/kvstore/ocdbt/format/indirect_data_reference_codec.h
- B+tree nodes, and the walk's key prefixes:
  https://github.com/google/tensorstore/blob/v0.1.85/tensorstore/kvstore/ocdbt/format/btree.cc,
  .../format/btree_codec.h and .../kvstore/ocdbt/non_distributed/list.cc
- zarr dtypes: https://github.com/google/tensorstore/blob/v0.1.85/tensorstore/driver/zarr/dtype.cc

What is read: the manifest, the nodes of the latest version's B+tree, and the ``.zarray`` values
(inline in a node, or the few bytes a reference names in a data file). The CRC-32C of every
manifest and node is checked (in pure Python: they are small). What is NOT read: the chunks'
values (the arrays' data; their references are never followed), versions other than the latest
(the version tree nodes are never followed), numbered manifests (``manifest.<generation>``
files, which tensorstore writes only where a single file cannot be replaced atomically; refused
with a message) and a ``.zarray``'s fields other than shape, dtype and chunks.

zstd, with which Orbax compresses every record, is the optional ``zstandard`` package (the
``orbax`` extra): without it, reading a compressed store is an ``UnreadableStore`` saying so.
Every failure -- a missing, truncated, corrupt or hostile store -- is an ``UnreadableStore`` whose
message names the file and why; sizes, counts and the walk are bounded (``ocdbt/*``: 16 MiB a
record, compressed or not; 256 MiB read in all; 100,000 nodes, each read once; 32 levels).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from tpuemb_cli.load.ocdbt.btree import Entry, walk
from tpuemb_cli.load.ocdbt.cursor import UnreadableStore as UnreadableStore
from tpuemb_cli.load.ocdbt.envelope import MANIFEST_MAGIC, open_record
from tpuemb_cli.load.ocdbt.envelope import zstd_available as zstd_available
from tpuemb_cli.load.ocdbt.files import MANIFEST_NAME, StoreFiles
from tpuemb_cli.load.ocdbt.manifest import latest_version
from tpuemb_cli.load.ocdbt.references import Reference

ZARRAY_SUFFIX = "/.zarray"
# A .zarray is a few hundred bytes of JSON.
MAX_ZARRAY_BYTES = 1024 * 1024
# zarr's dtypes spelled by name (tensorstore's GetTypeName), read as they are.
_NAMED_DTYPES = frozenset(
    {
        "bfloat16",
        "float8_e3m4",
        "float8_e4m3fn",
        "float8_e4m3fnuz",
        "float8_e4m3b11fnuz",
        "float8_e5m2",
        "float8_e5m2fnuz",
        "float8_e8m0fnu",
        "float4_e2m1fn",
        "int2",
        "int4",
    }
)
# NumPy's typestr kind and size -> name; "|" is only for one-byte types, as in tensorstore.
_TYPESTR = {
    ("b", "1"): "bool",
    ("i", "1"): "int8",
    ("i", "2"): "int16",
    ("i", "4"): "int32",
    ("i", "8"): "int64",
    ("u", "1"): "uint8",
    ("u", "2"): "uint16",
    ("u", "4"): "uint32",
    ("u", "8"): "uint64",
    ("f", "2"): "float16",
    ("f", "4"): "float32",
    ("f", "8"): "float64",
    ("c", "8"): "complex64",
    ("c", "16"): "complex128",
}


class ZArray(NamedTuple):
    """What a ``.zarray`` says of an array: its global shape, its dtype as NumPy names it
    ("float32", "bfloat16", ...) and its chunks' shape."""

    shape: tuple[int, ...]
    dtype: str
    chunks: tuple[int, ...]


def store_keys(item_dir: Path) -> list[str]:
    """Every key of the store at ``item_dir`` (its latest version), sorted."""
    _, entries = _entries(item_dir)
    return sorted(_text(item_dir, entry.key) for entry in entries)


def read_zarrays(item_dir: Path) -> dict[str, ZArray]:
    """Each array of the store at ``item_dir``, by dotted parameter name ("user_item.table")."""
    files, entries = _entries(item_dir)
    arrays = {}
    for entry in entries:
        key = _text(item_dir, entry.key)
        if key != ZARRAY_SUFFIX[1:] and not key.endswith(ZARRAY_SUFFIX):
            continue
        where = f"{item_dir} (key {key!r})"
        arrays[key[: -len(ZARRAY_SUFFIX)]] = parse_zarray(_value(files, entry.value, where), where)
    return arrays


def parse_zarray(data: bytes, where: str) -> ZArray:
    """A ``.zarray`` record's shape, dtype and chunks; ``where`` names it for messages."""
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise UnreadableStore(f"{where}: the .zarray is not JSON: {error}") from None
    if not isinstance(record, dict):
        raise UnreadableStore(f"{where}: the .zarray is not a JSON object")
    shape = _dimensions(record, "shape", where, smallest=0)
    chunks = _dimensions(record, "chunks", where, smallest=1)
    if len(chunks) != len(shape):
        raise UnreadableStore(
            f"{where}: the .zarray's chunks {list(chunks)} do not have one size per dimension of "
            f"its shape {list(shape)}"
        )
    return ZArray(shape, _dtype(record.get("dtype"), where), chunks)


def _entries(item_dir: Path) -> tuple[StoreFiles, list[Entry]]:
    files = StoreFiles(item_dir)
    where = str(files.name(MANIFEST_NAME))
    manifest = open_record(files.manifest(), MANIFEST_MAGIC, "manifest", where)
    return files, list(walk(files, latest_version(manifest), where))


def _text(item_dir: Path, key: bytes) -> str:
    try:
        return key.decode("utf-8")
    except UnicodeDecodeError:
        raise UnreadableStore(
            f"{item_dir}: the store has a key that is not UTF-8: {key[:80]!r}"
        ) from None


def _value(files: StoreFiles, value: bytes | Reference, where: str) -> bytes:
    if isinstance(value, bytes):
        return value
    if value.length > MAX_ZARRAY_BYTES:
        raise UnreadableStore(
            f"{where}: the .zarray is {value.length:,} bytes long; at most {MAX_ZARRAY_BYTES:,} "
            "are read"
        )
    return files.read(value.file.path, value.offset, value.length, ".zarray value")


def _dimensions(
    record: dict[str, object], field: str, where: str, smallest: int
) -> tuple[int, ...]:
    value = record.get(field)
    if value is None:
        raise UnreadableStore(f"{where}: the .zarray has no {field}")
    if not isinstance(value, list) or not all(
        isinstance(size, int) and not isinstance(size, bool) and size >= smallest for size in value
    ):
        raise UnreadableStore(
            f"{where}: the .zarray's {field} is not a list of integers of at least {smallest}: "
            f"{_shown(value)}"
        )
    return tuple(value)


def _dtype(value: object, where: str) -> str:
    if value is None:
        raise UnreadableStore(f"{where}: the .zarray has no dtype")
    if not isinstance(value, str):
        raise UnreadableStore(
            f"{where}: the .zarray's dtype is not a string (a structured dtype, which Orbax "
            f"never writes): {_shown(value)}"
        )
    if value in _NAMED_DTYPES:
        return value
    order, kind, size = value[:1], value[1:2], value[2:]
    name = _TYPESTR.get((kind, size))
    one_byte = size == "1"
    if name is None or order not in "<>|" or not order or (order == "|" and not one_byte):
        raise UnreadableStore(f"{where}: the .zarray's dtype {value[:80]!r} is not a zarr dtype")
    return name


def _shown(value: object) -> str:
    """A JSON value for a message: its first 80 characters."""
    try:
        return json.dumps(value)[:80]
    except (RecursionError, ValueError):  # nested as deep as json.loads reads, or a huge int
        return f"a {type(value).__name__}"
