"""The OCDBT reader (load/orbax_store.py, load/ocdbt/), without tensorstore: on the Orbax fixtures
(tests/data/orbax), whose keys and .zarray records tensorstore itself read into expected.json; on
stores written here as tensorstore writes them (tests/ocdbt_files.py: interior nodes, inherited
base paths, .zarray values out of line); and on hostile stores -- each a clear UnreadableStore
naming the file, never a traceback, a hang or a read outside the store."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import zstandard

from tpuemb_cli.load.ocdbt import btree, envelope, files
from tpuemb_cli.load.ocdbt.envelope import BTREE_NODE_MAGIC, MANIFEST_MAGIC
from tpuemb_cli.load.ocdbt.manifest import latest_version
from tpuemb_cli.load.ocdbt.references import Reference
from tpuemb_cli.load.orbax_store import (
    UnreadableStore,
    ZArray,
    parse_zarray,
    read_zarrays,
    store_keys,
    zstd_available,
)

from . import ocdbt_files as ocdbt
from .helpers import DATA
from .ocdbt_files import Child, Ref

ORBAX = DATA / "orbax"
# case -> its item directory (a StandardCheckpointer's is the checkpoint directory itself) and
# the item's name in expected.json.
ITEMS = {
    "adagrad_manager": ("ckpt/100/params", "params"),
    "adam_manager": ("ckpt/7/params", "params"),
    "sgd_standard": ("ckpt", ""),
}
STORES = [
    pytest.param(case, sub, id=f"{case}-{sub or 'root'}")
    for case in ITEMS
    for sub in ("", "ocdbt.process_0")
]
ZARRAY = json.dumps(
    {"chunks": [96, 16], "dtype": "<f4", "shape": [768, 16], "zarr_format": 2}
).encode()


def _expected_item(case: str) -> dict[str, Any]:
    expected: dict[str, Any] = json.loads((ORBAX / case / "expected.json").read_text())
    return dict(expected["items"][ITEMS[case][1]])


def _expected(case: str) -> dict[str, Any]:
    return dict(_expected_item(case)["ocdbt"])


def _item(case: str) -> Path:
    return ORBAX / case / ITEMS[case][0]


def _copy(case: str, tmp_path: Path) -> Path:
    target = tmp_path / case
    shutil.copytree(_item(case), target)
    return target


def _root_node(item: Path) -> Path:
    (node,) = (item / "d").iterdir()
    return node


def _refused(item: Path, *words: str, keys_too: bool = True) -> str:
    """Reading ``item`` is an UnreadableStore whose message holds ``words``; so is listing its
    keys, unless only a .zarray is wrong (``keys_too`` false)."""
    with pytest.raises(UnreadableStore) as caught:
        read_zarrays(item)
    message = str(caught.value)
    for word in words:
        assert word in message, message
    if keys_too:
        with pytest.raises(UnreadableStore):
            store_keys(item)
    return message


# -- the fixtures ------------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "sub"), STORES)
def test_the_keys_are_the_ones_tensorstore_lists(case: str, sub: str) -> None:
    assert store_keys(_item(case) / sub) == _expected(case)["keys"]


@pytest.mark.parametrize(("case", "sub"), STORES)
def test_the_zarrays_are_what_orbax_reads_back(case: str, sub: str) -> None:
    """Each array's shape, dtype and chunks as Orbax's metadata API reads them (``arrays``, by key
    path, whose dotted name is the store's key prefix), and as tensorstore decoded the .zarray
    records (``ocdbt.zarray``)."""
    expected = _expected_item(case)
    by_orbax = {
        ".".join(array["key_path"]): ZArray(
            tuple(array["shape"]), array["dtype"], tuple(array["chunk_shape"])
        )
        for array in expected["arrays"].values()
    }
    records = expected["ocdbt"]["zarray"]
    by_tensorstore = {
        key.removesuffix("/.zarray"): (tuple(record["shape"]), tuple(record["chunks"]))
        for key, record in records.items()
    }
    read = read_zarrays(_item(case) / sub)
    assert read == by_orbax
    assert {name: (array.shape, array.chunks) for name, array in read.items()} == by_tensorstore
    assert {record["dtype"] for record in records.values()} == {"<f4"}


def test_a_leaf_written_here_is_the_leaf_tensorstore_wrote() -> None:
    """The writer of the synthetic stores below encodes a leaf byte for byte as tensorstore
    does (prefix-compressed keys, inline values, references with base paths)."""
    for case in ITEMS:
        for sub in ("", "ocdbt.process_0"):
            store = files.StoreFiles(_item(case) / sub)
            version = latest_version(
                envelope.open_record(store.manifest(), MANIFEST_MAGIC, "manifest", "manifest")
            )
            entries = [
                (entry.key, _ref(entry.value)) for entry in btree.walk(store, version, "manifest")
            ]
            root = version.root
            encoded = store.read(root.file.path, root.offset, root.length, "node")
            body = zstandard.ZstdDecompressor().decompress(encoded[14:-4])  # header: 12 + 2 bytes
            assert ocdbt.leaf_body(entries) == body, (case, sub)


def _ref(value: bytes | Reference) -> bytes | Ref:
    if isinstance(value, bytes):
        return value
    return Ref((value.file.base_path, value.file.relative_path), value.offset, value.length)


# -- stores written here: interior nodes, inherited base paths, values out of line ------------

BIG = json.dumps({"shape": [1000, 8], "dtype": "bfloat16", "chunks": [100, 8]}).encode()
SMALL = json.dumps({"shape": [], "dtype": "|u1", "chunks": []}).encode()
TREE_KEYS = ["a.big/.zarray", "a.big/0.0", "a.small/.zarray", "a.small/0"]
TREE_ZARRAYS = {
    "a.big": ZArray((1000, 8), "bfloat16", (100, 8)),
    "a.small": ZArray((), "uint8", ()),
}
# A chunk's value is in a file that does not exist: reading it would fail.
NO_CHUNKS = (b"", b"d/chunks-never-read")


def _tree(directory: Path, compress: bool = True, mid_height: int = 1) -> Path:
    """A store three levels tall: a root (height 2, in d/root) -> a node whose keys follow the
    prefix "a." (in d/root) -> two leaves, one in sub/d/leaf (whose own data files are then under
    sub/) holding a .zarray out of line in sub/d/values, one in d/root with its .zarray inline."""
    values = b"xxxxx" + BIG + b"yyy"
    leaf_big = ocdbt.envelope(
        BTREE_NODE_MAGIC,
        ocdbt.leaf_body(
            [
                (b".zarray", Ref((b"", b"d/values"), 5, len(BIG))),
                (b"0.0", Ref(NO_CHUNKS, 0, 3842)),
            ]
        ),
        compress,
    )
    leaf_small = ocdbt.envelope(
        BTREE_NODE_MAGIC,
        ocdbt.leaf_body([(b".zarray", SMALL), (b"0", Ref(NO_CHUNKS, 10, 20))]),
        compress=not compress,
    )
    root_file = bytearray(b"pad")
    small_at = len(root_file)
    root_file += leaf_small
    mid = ocdbt.envelope(
        BTREE_NODE_MAGIC,
        ocdbt.interior_body(
            mid_height,
            [
                Child(b"big/.zarray", 4, Ref((b"sub/", b"d/leaf"), 0, len(leaf_big))),
                Child(b"small/.zarray", 6, Ref((b"", b"d/root"), small_at, len(leaf_small))),
            ],
        ),
        compress,
    )
    mid_at = len(root_file)
    root_file += mid
    root = ocdbt.envelope(
        BTREE_NODE_MAGIC,
        ocdbt.interior_body(
            2, [Child(b"a.big/.zarray", 2, Ref((b"", b"d/root"), mid_at, len(mid)))]
        ),
        compress,
    )
    root_at = len(root_file)
    root_file += root
    return ocdbt.write_store(
        directory,
        Ref((b"", b"d/root"), root_at, len(root)),
        2,
        {"d/root": bytes(root_file), "sub/d/leaf": leaf_big, "sub/d/values": values},
    )


@pytest.mark.parametrize("compress", [True, False])
def test_a_tree_of_interior_nodes_is_walked_with_its_prefixes(
    tmp_path: Path, compress: bool
) -> None:
    store = _tree(tmp_path, compress)
    assert store_keys(store) == TREE_KEYS
    assert read_zarrays(store) == TREE_ZARRAYS


def test_an_empty_store_has_no_keys(tmp_path: Path) -> None:
    store = ocdbt.write_store(tmp_path, None, 0, {})
    assert store_keys(store) == []
    assert read_zarrays(store) == {}


def test_a_child_of_the_wrong_height_is_refused(tmp_path: Path) -> None:
    _refused(_tree(tmp_path, mid_height=3), "height is 3", "parent says 1", "d/root")


def test_chunk_values_are_never_read(tmp_path: Path) -> None:
    store = _tree(tmp_path)
    assert not (store / "d" / "chunks-never-read").exists()
    assert read_zarrays(store) == TREE_ZARRAYS


# -- hostile stores ----------------------------------------------------------------------------


def test_a_directory_without_a_manifest_is_not_a_store(tmp_path: Path) -> None:
    _refused(tmp_path, "manifest.ocdbt: not found", "not an OCDBT store")
    _refused(tmp_path / "absent", "cannot open the directory")
    _refused(tmp_path / "nul\0byte", "cannot open the directory", "null byte")
    (tmp_path / "file").write_text("x")
    _refused(tmp_path / "file", "is not a directory")


def test_a_truncated_manifest_is_refused(tmp_path: Path) -> None:
    item = _copy("adagrad_manager", tmp_path)
    manifest = item / "manifest.ocdbt"
    manifest.write_bytes(manifest.read_bytes()[:-10])
    _refused(item, f"{manifest}:", "header says the manifest is 115 bytes long, but it is 105")


def test_a_truncated_node_file_is_refused(tmp_path: Path) -> None:
    item = _copy("adam_manager", tmp_path)
    node = _root_node(item)
    node.write_bytes(node.read_bytes()[:100])
    _refused(item, f"{node}:", "416 bytes at byte 0", "the file is 100 bytes long")


def test_a_bad_magic_number_is_refused(tmp_path: Path) -> None:
    item = _copy("sgd_standard", tmp_path)
    manifest = item / "manifest.ocdbt"
    manifest.write_bytes(b"\x0c\xdb\x20\xde" + manifest.read_bytes()[4:])
    _refused(item, "not an OCDBT manifest", "0x0cdb20de", "0x0cdb3a2a")
    node = _root_node(item)
    shutil.copy(_root_node(_item("sgd_standard")), node)
    shutil.copy(node, manifest)  # a node where the manifest should be
    _refused(item, f"{manifest}:", "not an OCDBT manifest")


def test_random_bytes_and_an_empty_file_are_refused(tmp_path: Path) -> None:
    item = _copy("sgd_standard", tmp_path)
    manifest = item / "manifest.ocdbt"
    manifest.write_bytes(random.Random(7).randbytes(4096))
    _refused(item, f"{manifest}:", "not an OCDBT manifest")
    manifest.write_bytes(b"")
    _refused(item, "0 bytes long: too short for an OCDBT manifest")
    node = _root_node(item)
    shutil.copy(_item("sgd_standard") / "manifest.ocdbt", manifest)
    node.write_bytes(b"")
    _refused(item, f"{node}:", "the file is 0 bytes long")


def test_a_corrupt_byte_fails_the_crc(tmp_path: Path) -> None:
    item = _copy("adagrad_manager", tmp_path)
    manifest = item / "manifest.ocdbt"
    data = bytearray(manifest.read_bytes())
    data[60] ^= 0x01
    manifest.write_bytes(bytes(data))
    _refused(item, f"{manifest}:", "CRC-32C", "corrupt")


def test_huge_declared_lengths_are_refused_before_anything_is_allocated(tmp_path: Path) -> None:
    def leaf(body: bytes) -> Path:
        directory = tmp_path / str(len(list(tmp_path.iterdir())))
        node = ocdbt.envelope(BTREE_NODE_MAGIC, body)
        return ocdbt.write_store(
            directory, Ref((b"", b"d/root"), 0, len(node)), 0, {"d/root": node}
        )

    good = ocdbt.leaf_body([(b"k/.zarray", ZARRAY)])
    # height 0, an empty table, one entry, key suffix length 9 (at byte 3)
    assert good[:4] == b"\0\0\1\x09"
    _refused(leaf(b"\0\0\1" + ocdbt.varint(60000) + good[4:]), "key 0 is 60,000 bytes long")
    _refused(leaf(b"\0\0" + ocdbt.varint(2**40) + good[3:]), "number of entries", "1,048,576")
    _refused(leaf(b"\0" + ocdbt.varint(2**62) + good[2:]), "number of data files", "needs at least")
    inline = 4 + len(b"k/.zarray")  # the value's length, after the key
    assert good[inline : inline + 2] == ocdbt.varint(len(ZARRAY)) + b"\0"
    _refused(
        leaf(good[:inline] + ocdbt.varint(2**50) + good[inline + 1 :]),
        "value 0 is 1,125,899,906,842,624 bytes inline",
    )
    _refused(leaf(good + b"\0"), "1 byte is left after the B+tree node's values")
    _refused(
        leaf(good[:-5]),
        f"value 0 is {len(ZARRAY)} bytes long, but only {len(ZARRAY) - 5} bytes are left",
    )
    big = ocdbt.leaf_body([(b"k/.zarray", Ref((b"", b"d/root"), 0, 2**30))])
    _refused(
        leaf(big),
        "the .zarray is 1,073,741,824 bytes long; at most 1,048,576 are read",
        keys_too=False,
    )
    # A root node reference of 2 GiB: refused before the file is opened.
    store = ocdbt.write_store(
        tmp_path / "root", Ref((b"", b"d/root"), 0, 2**31), 0, {"d/root": b""}
    )
    _refused(store, "a B+tree node of 2,147,483,648 bytes", "more than the 16,777,216 read")


def test_a_data_file_that_is_a_directory_or_a_fifo_is_refused_before_it_is_opened(
    tmp_path: Path,
) -> None:
    item = _copy("adagrad_manager", tmp_path)
    node = _root_node(item)
    node.unlink()
    node.mkdir()
    _refused(item, f"{node}:", "is not a regular file")
    node.rmdir()
    if not hasattr(os, "mkfifo"):
        return
    os.mkfifo(node)  # opening it for reading would block until a writer came
    _refused(item, f"{node}:", "is not a regular file")


def test_a_symlink_out_of_the_store_is_refused(tmp_path: Path) -> None:
    item = _copy("adagrad_manager", tmp_path)
    node = _root_node(item)
    node.unlink()
    node.symlink_to("/etc/passwd")
    _refused(item, f"{node}:", "leads outside the store's directory", "refused")
    node.unlink()
    node.symlink_to(node.name)  # a loop
    _refused(item, f"{node}:", "cannot open the B+tree node's file")
    manifest = item / "manifest.ocdbt"
    manifest.unlink()
    outside = tmp_path / "elsewhere.ocdbt"
    shutil.copy(_item("adagrad_manager") / "manifest.ocdbt", outside)
    manifest.symlink_to(outside)
    _refused(item, "manifest.ocdbt: leads outside")


def test_a_symlink_inside_the_store_is_followed(tmp_path: Path) -> None:
    item = _copy("adagrad_manager", tmp_path)
    node = _root_node(item)
    moved = item / "d" / "moved"
    node.rename(moved)
    node.symlink_to(moved.name)
    assert store_keys(item) == _expected("adagrad_manager")["keys"]


def test_a_missing_data_file_is_refused(tmp_path: Path) -> None:
    item = _copy("adam_manager", tmp_path)
    node = _root_node(item)
    node.unlink()
    _refused(item, f"{node}:", "cannot open the B+tree node's file")


@pytest.mark.parametrize(
    "path",
    [b"../outside", b"d/../../outside", b"/etc/passwd", b"./d/x", b"d//x", b"c:\\x", b"d/\0x"],
)
def test_a_data_file_path_that_leaves_the_store_is_refused(tmp_path: Path, path: bytes) -> None:
    (tmp_path / "outside").write_bytes(b"\0" * 64)
    store = ocdbt.write_store(tmp_path / "store", Ref((b"", path), 0, 32), 0, {})
    _refused(store, "is not a plain relative path inside the store", "refused")


def test_a_base_path_that_leaves_the_store_is_refused(tmp_path: Path) -> None:
    store = ocdbt.write_store(tmp_path, Ref((b"../", b"d/root"), 0, 32), 0, {})
    _refused(store, "'../d/root'", "not a plain relative path")


def test_a_zstd_bomb_is_refused(tmp_path: Path) -> None:
    body = ocdbt.leaf_body([(b"k/.zarray", ZARRAY)]) + bytes(64 * 1024 * 1024)
    for content_size, words in ((True, "declares 67,108,"), (False, "does not decompress")):
        node = ocdbt.envelope(BTREE_NODE_MAGIC, body, content_size=content_size)
        assert len(node) < 64 * 1024
        store = ocdbt.write_store(
            tmp_path / str(content_size), Ref((b"", b"d/root"), 0, len(node)), 0, {"d/root": node}
        )
        _refused(store, "d/root (the B+tree node at bytes 0 to", words, "16,777,216")


def test_a_tree_taller_than_the_bound_is_refused(tmp_path: Path) -> None:
    store = ocdbt.write_store(tmp_path, Ref((b"", b"d/root"), 0, 32), 200, {"d/root": bytes(32)})
    _refused(store, "manifest.ocdbt:", "200 levels tall; at most 32")


def test_a_node_referenced_twice_is_refused(tmp_path: Path) -> None:
    leaf = ocdbt.envelope(BTREE_NODE_MAGIC, ocdbt.leaf_body([(b"", ZARRAY)]))
    to_leaf = Ref((b"", b"d/leaf"), 0, len(leaf))
    # Every child of the root is the same leaf, under keys that differ only in what the leaf's
    # implicit prefix leaves out: a DAG whose walk would repeat the leaf 1,000 times.
    children = [Child(b"k%04d/.zarray" % index, 13, to_leaf) for index in range(1000)]
    root = ocdbt.envelope(BTREE_NODE_MAGIC, ocdbt.interior_body(1, children))
    store = ocdbt.write_store(
        tmp_path, Ref((b"", b"d/root"), 0, len(root)), 1, {"d/root": root, "d/leaf": leaf}
    )
    _refused(store, f"{store / 'd' / 'leaf'}:", "node at bytes 0 is referenced twice")


def _wide(directory: Path, leaves: int) -> tuple[Path, int]:
    """A store whose root has ``leaves`` leaves, each its own node in d/leaves."""
    blob, children = bytearray(), []
    for index in range(leaves):
        key = b"k%04d/.zarray" % index
        leaf = ocdbt.envelope(BTREE_NODE_MAGIC, ocdbt.leaf_body([(b"", ZARRAY)]))
        children.append(Child(key, len(key), Ref((b"", b"d/leaves"), len(blob), len(leaf))))
        blob += leaf
    root = ocdbt.envelope(BTREE_NODE_MAGIC, ocdbt.interior_body(1, children))
    blobs = {"d/root": root, "d/leaves": bytes(blob)}
    return ocdbt.write_store(directory, Ref((b"", b"d/root"), 0, len(root)), 1, blobs), len(leaf)


def test_the_walk_is_bounded_in_nodes_bytes_read_and_bytes_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, leaf_size = _wide(tmp_path, 150)
    assert len(read_zarrays(store)) == 150
    monkeypatch.setattr(btree, "MAX_NODES", 100)
    _refused(store, f"{store / 'manifest.ocdbt'}:", "more than 100 nodes")
    monkeypatch.setattr(btree, "MAX_NODES", 100_000)
    monkeypatch.setattr(files, "MAX_TOTAL_BYTES", 50 * leaf_size)
    _refused(store, f"{store / 'd' / 'leaves'}:", "would read more than")
    monkeypatch.setattr(files, "MAX_TOTAL_BYTES", 2**30)
    monkeypatch.setattr(btree, "MAX_DECODED_TOTAL", 5000)
    _refused(store, "(the B+tree node at bytes", "decompress to more than 5,000 bytes")


def test_keys_out_of_order_across_nodes_are_refused(tmp_path: Path) -> None:
    late = ocdbt.envelope(BTREE_NODE_MAGIC, ocdbt.leaf_body([(b"z/.zarray", ZARRAY)]))
    early = ocdbt.envelope(BTREE_NODE_MAGIC, ocdbt.leaf_body([(b"m/.zarray", ZARRAY)]))
    children = [
        Child(b"a", 0, Ref((b"", b"d/leaves"), 0, len(late))),
        Child(b"b", 0, Ref((b"", b"d/leaves"), len(late), len(early))),
    ]
    root = ocdbt.envelope(BTREE_NODE_MAGIC, ocdbt.interior_body(1, children))
    blobs = {"d/root": root, "d/leaves": late + early}
    store = ocdbt.write_store(tmp_path, Ref((b"", b"d/root"), 0, len(root)), 1, blobs)
    _refused(store, "d/leaves (the B+tree node at bytes", "b'm/.zarray' does not sort after")
    before = ocdbt.envelope(
        BTREE_NODE_MAGIC, ocdbt.interior_body(1, [Child(b"zz", 0, children[0].node)])
    )
    blobs = {"d/root": before}
    ocdbt.write_store(store, Ref((b"", b"d/root"), 0, len(before)), 1, blobs)
    _refused(store, "d/leaves", "sorts before b'zz', where its parent puts it")


def test_a_numbered_manifest_is_refused_with_a_reason(tmp_path: Path) -> None:
    store = ocdbt.write_store(tmp_path, None, 0, {}, kind=1)
    _refused(store, "manifest.ocdbt:", "numbered manifest", "does not read")


@pytest.mark.parametrize(
    ("record", "words"),
    [
        (b"\xff\xfe", "not JSON"),
        (b"{", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"dtype": "<f4", "chunks": [1]}', "has no shape"),
        (b'{"shape": [4], "chunks": [1]}', "has no dtype"),
        (b'{"shape": [4], "dtype": "<f4"}', "has no chunks"),
        (b'{"shape": [4, true], "dtype": "<f4", "chunks": [1, 1]}', "shape is not a list"),
        (b'{"shape": [-4], "dtype": "<f4", "chunks": [1]}', "of at least 0"),
        (b'{"shape": [4], "dtype": "<f4", "chunks": [0]}', "of at least 1"),
        (b'{"shape": [4], "dtype": "<f4", "chunks": [1, 1]}', "one size per dimension"),
        (b'{"shape": [4], "dtype": "|f4", "chunks": [1]}', "'|f4' is not a zarr dtype"),
        (b'{"shape": [4], "dtype": "<f3", "chunks": [1]}', "is not a zarr dtype"),
        (b'{"shape": [4], "dtype": [["a", "<f4"]], "chunks": [1]}', "a structured dtype"),
        (b'{"shape": [4], "dtype": "' + b"9" * 5000 + b'", "chunks": [1]}', "not a zarr dtype"),
        (b"[" * 100_000, "not JSON"),
    ],
)
def test_a_zarray_that_is_not_a_zarray_is_refused(
    tmp_path: Path, record: bytes, words: str
) -> None:
    store = ocdbt.leaf_store(tmp_path, [(b"p/.zarray", record)])
    message = _refused(store, f"{store} (key 'p/.zarray'):", words, keys_too=False)
    assert len(message) < 400
    assert store_keys(store) == ["p/.zarray"]


@pytest.mark.parametrize(
    ("dtype", "name"),
    [
        ("<f4", "float32"),
        (">f8", "float64"),
        ("<f2", "float16"),
        ("bfloat16", "bfloat16"),
        ("float8_e4m3fn", "float8_e4m3fn"),
        ("int4", "int4"),
        ("|b1", "bool"),
        ("<b1", "bool"),
        ("|i1", "int8"),
        ("<u1", "uint8"),
        ("<i4", "int32"),
        (">i8", "int64"),
        ("<u4", "uint32"),
        ("<c8", "complex64"),
        ("<c16", "complex128"),
    ],
)
def test_zarr_dtypes_are_numpy_names(dtype: str, name: str) -> None:
    record = json.dumps({"shape": [2], "dtype": dtype, "chunks": [1]}).encode()
    assert parse_zarray(record, "x").dtype == name


def test_without_zstandard_the_reader_says_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert zstd_available()
    monkeypatch.setitem(sys.modules, "zstandard", None)  # `import zstandard` raises ImportError
    assert not zstd_available()
    item = _item("adagrad_manager")
    message = _refused(
        item, f"{item / 'manifest.ocdbt'}:", "needs the zstandard package", "'tpuemb[orbax]'"
    )
    assert "Traceback" not in message


def test_an_uncompressed_store_needs_no_zstandard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    leaf = ocdbt.envelope(BTREE_NODE_MAGIC, ocdbt.leaf_body([(b"p/.zarray", ZARRAY)]), False)
    ocdbt.write_store(store, Ref((b"", b"d/root"), 0, len(leaf)), 0, {"d/root": leaf})
    manifest = store / "manifest.ocdbt"
    body = ocdbt.manifest_body(Ref((b"", b"d/root"), 0, len(leaf)), 0)
    manifest.write_bytes(ocdbt.envelope(MANIFEST_MAGIC, body, compress=False))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    assert read_zarrays(store) == {"p": ZArray((768, 16), "float32", (96, 16))}


# -- fuzz: flipped bytes, in the files and inside their envelopes -------------------------------


def _read_or_refuse(item: Path) -> None:
    """Reading ``item`` succeeds or is an UnreadableStore; anything else fails the test."""
    for read in (store_keys, read_zarrays):
        try:
            read(item)
        except UnreadableStore as error:
            assert str(error).startswith(str(item)), error


def _stores(tmp_path: Path) -> list[Path]:
    return [
        store
        for case in ITEMS
        for store in (_copy(case, tmp_path), tmp_path / case / "ocdbt.process_0")
    ]


@pytest.mark.slow
def test_flipped_bytes_in_the_files_are_read_or_refused(tmp_path: Path) -> None:
    rng = random.Random(39)
    stores = _stores(tmp_path)
    for _ in range(300):
        store = rng.choice(stores)
        path = rng.choice([store / "manifest.ocdbt", *sorted((store / "d").iterdir())])
        original = path.read_bytes()
        data = bytearray(original)
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        _read_or_refuse(store)
        path.write_bytes(original)


@pytest.mark.slow
def test_flipped_bytes_inside_valid_envelopes_are_read_or_refused(tmp_path: Path) -> None:
    """The CRC refuses almost every flipped byte of a file: here the decompressed body is mutated
    and wrapped again with a valid CRC, so the decoders themselves meet the damage."""
    rng = random.Random(85)
    stores = _stores(tmp_path)
    outcomes = {"read": 0, "refused": 0}
    for _ in range(300):
        store = rng.choice(stores)
        store_files = files.StoreFiles(store)
        manifest = store_files.manifest()
        root = latest_version(
            envelope.open_record(manifest, MANIFEST_MAGIC, "manifest", "manifest")
        ).root
        if rng.random() < 0.3:
            path, magic = store / "manifest.ocdbt", MANIFEST_MAGIC
            encoded = manifest
        else:
            path, magic = store / root.file.path.decode(), BTREE_NODE_MAGIC
            encoded = store_files.read(root.file.path, root.offset, root.length, "node")
        body = bytearray(zstandard.ZstdDecompressor().decompress(encoded[14:-4]))
        at = rng.randrange(len(body))
        action = rng.randrange(4)
        if action == 0:
            body[at] ^= 1 << rng.randrange(8)
        elif action == 1:
            body[at] = rng.choice([0, 1, 0x7F, 0x80, 0xFF])
        elif action == 2:
            del body[at : at + rng.randint(1, 4)]
        else:
            body[at:at] = rng.randbytes(rng.randint(1, 4))
        original = path.read_bytes()
        rewrapped = ocdbt.envelope(magic, bytes(body))
        # The manifest names the root node's length: a node that changed size moves to the end of
        # its file, and the manifest says so.
        if magic == BTREE_NODE_MAGIC:
            path.write_bytes(original + rewrapped)
            body_of_manifest = ocdbt.manifest_body(
                Ref((root.file.base_path, root.file.relative_path), len(original), len(rewrapped)),
                0,
            )
            manifest_path = store / "manifest.ocdbt"
            manifest_path.write_bytes(ocdbt.envelope(MANIFEST_MAGIC, body_of_manifest))
        else:
            path.write_bytes(rewrapped)
        try:
            read_zarrays(store)
            store_keys(store)
            outcomes["read"] += 1
        except UnreadableStore as error:
            assert str(error).startswith(str(store)), error
            outcomes["refused"] += 1
        path.write_bytes(original)
        (store / "manifest.ocdbt").write_bytes(manifest)
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes


def test_the_reader_imports_zstandard_only_to_decompress_and_never_tensorstore() -> None:
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tpuemb_cli.load import orbax_store\n"
        "assert 'zstandard' not in sys.modules\n"
        f"assert orbax_store.read_zarrays(Path({str(_item('sgd_standard'))!r}))\n"
        "assert 'zstandard' in sys.modules\n"
        "print(sorted({'tensorstore', 'orbax', 'jax', 'numpy'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")


def test_a_zarray_nested_as_deep_as_json_reads_is_refused_in_a_short_message() -> None:
    for depth in (50, 500, 990, 5000):  # read by json.loads, or past what it reads
        record = b'{"shape": ' + b"[" * depth + b"]" * depth + b', "dtype": "<f4", "chunks": [1]}'
        with pytest.raises(UnreadableStore) as caught:
            parse_zarray(record, "x")
        message = str(caught.value)
        assert message.startswith(
            ("x: the .zarray's shape is not a list", "x: the .zarray is not JSON")
        )
        assert len(message) < 250, message
