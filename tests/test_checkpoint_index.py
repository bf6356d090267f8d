"""The checkpoint index reader (load/sstable.py, load/snappy.py, load/checkpoint.py), without
TensorFlow: tables written as TensorFlow writes them (tests/checkpoint_files.py), the indexes
TensorFlow wrote in tests/data/real-repo, where a user may point, and hostile indexes -- each a
clear UnreadableCheckpoint, never a traceback or a hang. tests/test_tf_checkpoint.py checks the
reader against TensorFlow's own on the checkpoints TensorFlow writes."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tpuemb_cli.load import checkpoint as reader
from tpuemb_cli.load.checkpoint import (
    UnreadableCheckpoint,
    Variable,
    escape,
    objects,
    parse_index,
    read_checkpoint,
    unescape,
)
from tpuemb_cli.load.snappy import SnappyError, decompress
from tpuemb_cli.load.sstable import FOOTER_SIZE, MAX_INFLATED, Table, crc32c, mask

from . import checkpoint_files as files
from .helpers import DATA

TREE = DATA / "real-repo" / "tree"
SHAPES = {
    "embedding/user/.ATTRIBUTES/VARIABLE_VALUE": (100, 16),
    "step/.ATTRIBUTES/VARIABLE_VALUE": (),
}


def _index(variables: Mapping[str, tuple[int, ...]] = SHAPES, **table: object) -> bytes:
    return files.table(files.bundle(variables), **table)  # type: ignore[arg-type]


def _read(data: bytes) -> dict[str, Variable]:
    return parse_index(data, "ckpt-1.index").variables


# -- the format --------------------------------------------------------------------------------


def test_crc32c_and_its_mask_are_leveldbs() -> None:
    # The check value of CRC-32C (RFC 3720 B.4), and LevelDB's crc32c_test.cc vectors.
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c(bytes(range(32))) == 0x46DD794E
    assert mask(0) == 0xA282EAD8
    assert mask(0x8A9136AA) == ((0x8A9136AA >> 15 | 0x8A9136AA << 17) + 0xA282EAD8) % 2**32


def test_a_bundle_reads_back() -> None:
    found = _read(_index())
    assert found["embedding/user/.ATTRIBUTES/VARIABLE_VALUE"] == Variable(
        "embedding/user/.ATTRIBUTES/VARIABLE_VALUE", "DT_FLOAT", (100, 16)
    )
    assert found["step/.ATTRIBUTES/VARIABLE_VALUE"].shape == ()
    assert found["_CHECKPOINTABLE_OBJECT_GRAPH"].dtype == "DT_STRING"
    assert len(found) == 3


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "snappy"])
@pytest.mark.parametrize("restart_interval", [1, 3, 16])
@pytest.mark.slow
def test_many_keys_over_many_blocks(compress: bool, restart_interval: int) -> None:
    # Long shared prefixes (prefix compression), restarts, a hundred data blocks.
    variables = {
        files.key("model/layer_with_weights-0/_tpu_embedding", f"table_{i}"): (i + 1, 8)
        for i in range(2000)
    }
    data = _index(variables, block_size=512, restart_interval=restart_interval, compress=compress)
    found = _read(data)
    assert {name: v.shape for name, v in found.items() if v.shape} == variables


def test_slices_of_a_sharded_variable() -> None:
    name = files.key("embedding", "user")
    pieces = [((0, 3), (0, None)), ((3, 2), (0, None)), ((5, 2), (0, 4))]
    found = _read(files.table(files.bundle({name: (7, 4)}, {name: pieces})))
    # The slices' own entries (NUL-keyed) are not variables.
    assert set(found) == {"_CHECKPOINTABLE_OBJECT_GRAPH", name}
    assert found[name].shape == (7, 4)
    assert found[name].slices == tuple(tuple(piece) for piece in pieces)


def test_escaping_is_tensorflows() -> None:
    assert escape("us.er/x") == "us..er.Sx"
    assert escape("user/momenta") == "user.Smomenta"
    for name in ("us.er/x", "a..b", "a/.S/b", ".", "/", "plain"):
        assert unescape(escape(name)) == name
    assert unescape(".OPTIMIZER_SLOT") == ".OPTIMIZER_SLOT"


def test_objects_groups_variables_by_their_holder() -> None:
    variables = files.embedding({"us.er/x": (7, 4)}, {"us.er/x": ["accumulators"]})
    variables[files.key("", "save_counter")] = ()
    variables["model/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"] = (3,)
    found = objects(parse_index(_index(variables), "x"))
    assert {holder: set(held) for holder, held in found.items()} == {
        "embedding": {"us.er/x", "us.er/x/accumulators"},
        "": {"save_counter"},
        "model/w/.OPTIMIZER_SLOT/optimizer": {"m"},
    }


# -- TensorFlow's own files --------------------------------------------------------------------

REAL = {
    # path -> (variables, shape of one of them), as tf.train.list_variables lists them
    "ckpt": (15, ("model/video_embedding/.ATTRIBUTES/VARIABLE_VALUE", (64, 8))),
    "models/ranker/1": (6, ("w1/.ATTRIBUTES/VARIABLE_VALUE", (16, 16))),
    # TensorFlow 1.x wrote this one's block with snappy.
    "models/half_plus_two/00000123": (4, ("a/.ATTRIBUTES/VARIABLE_VALUE", ())),
    "models/text_regression/01/variables": (1, ("_CHECKPOINTABLE_OBJECT_GRAPH", ())),
}


@pytest.mark.parametrize("path", sorted(REAL))
def test_tensorflows_indexes_read(path: str) -> None:
    count, (name, shape) = REAL[path]
    found = read_checkpoint(TREE / path)
    assert len(found.variables) == count
    assert found.variables[name].shape == shape
    assert found.num_shards == 1 and found.object_based


def test_the_snappy_index_is_snappy() -> None:
    data = (TREE / "models/half_plus_two/00000123/variables/variables.index").read_bytes()
    table = Table(data)
    list(table.items())
    assert table.inflated > 0


# -- where a user points -----------------------------------------------------------------------


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    folder = tmp_path / "train"
    folder.mkdir()
    for number in (1, 2):
        (folder / f"ckpt-{number}.index").write_bytes(_index({f"v{number}": (number,)}))
        (folder / f"ckpt-{number}.data-00000-of-00001").write_bytes(b"")
    (folder / "checkpoint").write_text(
        'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-1"\n'
        'all_model_checkpoint_paths: "ckpt-2"\n'
    )
    return folder


@pytest.mark.parametrize(
    "named", ["ckpt-2.index", "ckpt-2", "ckpt-2.data-00000-of-00001", ".", "./"]
)
def test_a_checkpoint_by_any_of_its_names(saved: Path, named: str) -> None:
    found = read_checkpoint(saved / named if named != "./" else f"{saved}/")
    assert found.path == str(saved / "ckpt-2.index")
    assert "v2" in found.variables


def test_the_state_file_with_an_absolute_path_from_elsewhere(saved: Path) -> None:
    (saved / "checkpoint").write_text('model_checkpoint_path: "/gone/train/ckpt-1"\n')
    assert read_checkpoint(saved).path == str(saved / "ckpt-1.index")


def test_savedmodel_folders() -> None:
    model = TREE / "models/ranker/1"
    for path in (model, model / "variables", model / "variables/variables.index"):
        assert read_checkpoint(path).path == str(model / "variables/variables.index")


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "ckpt-9: no such file or folder"),
        ("empty-folder", "no checkpoint in it (no `checkpoint` file, no .index file"),
        ("two-indexes", "holds 2 checkpoints (ckpt-1.index, ckpt-2.index) and no `checkpoint`"),
        ("state-without-latest", "names no latest checkpoint"),
        ("state-naming-nothing", "names 'ckpt-7' as the latest checkpoint, but"),
        ("not-a-checkpoint", "not a checkpoint (name a ckpt-N.index file"),
    ],
)
def test_paths_that_are_no_checkpoint(saved: Path, setup: str, message: str) -> None:
    path = saved / "ckpt-9"
    if setup == "empty-folder":
        path = saved / "empty"
        path.mkdir()
    elif setup == "two-indexes":
        (saved / "checkpoint").unlink()
        path = saved
    elif setup == "state-without-latest":
        (saved / "checkpoint").write_text('all_model_checkpoint_paths: "ckpt-1"\n')
        path = saved
    elif setup == "state-naming-nothing":
        (saved / "checkpoint").write_text('model_checkpoint_path: "ckpt-7"\n')
        path = saved
    elif setup == "not-a-checkpoint":
        path = saved / "notes.txt"
        path.write_text("hello")
    with pytest.raises(UnreadableCheckpoint) as raised:
        read_checkpoint(path)
    assert message in str(raised.value)
    assert str(path).rstrip("/") in str(raised.value) or str(saved) in str(raised.value)


# -- hostile indexes ---------------------------------------------------------------------------


def _footer_at(data: bytes) -> int:
    return len(data) - FOOTER_SIZE


def _unreadable(data: bytes) -> str:
    with pytest.raises(UnreadableCheckpoint) as raised:
        parse_index(data, "ckpt-1.index")
    message = str(raised.value)
    assert message.startswith("ckpt-1.index: ")
    return message


def _with_footer(data: bytes, metaindex: bytes, index: bytes) -> bytes:
    return data[: _footer_at(data)] + files.footer(metaindex, index)


def test_every_truncation_is_a_clear_error() -> None:
    data = _index()
    for size in range(len(data)):
        _unreadable(data[:size])


def test_every_flipped_byte_is_a_clear_error_or_harmless() -> None:
    data = _index()
    meta = Table(data).metaindex
    for at in range(len(data)):
        broken = bytearray(data)
        broken[at] ^= 0x40
        try:
            parse_index(bytes(broken), "ckpt-1.index")
        except UnreadableCheckpoint:
            continue
        # Only what TensorFlow does not read either: the metaindex block and the footer's padding.
        assert meta.offset <= at < meta.end or _footer_at(data) <= at < len(data) - 8, at


@pytest.mark.parametrize(
    ("break_it", "message"),
    [
        (lambda d: d[:-1] + b"\0", "bad magic number 0x00"),
        (lambda d: b"\xff" + d[1:], "data block 0 at byte 0: checksum mismatch"),
        (lambda d: _with_footer(d, files.handle(0, 0), files.handle(10**6, 5)), "runs past"),
        (lambda d: _with_footer(d, files.handle(2**64 - 1, 1), b""), "metaindex block"),
        (lambda d: _with_footer(d, b"\xff" * 11, b""), "a varint longer than 64 bits"),
        (lambda d: _with_footer(d, b"\xff" * 9 + b"\x7f", b""), "a varint larger than 64"),
        (lambda d: b"", "0 bytes: shorter than the 48-byte footer"),
    ],
    ids=[
        "magic",
        "crc",
        "handle-past-end",
        "huge-offset",
        "long-varint",
        "big-varint",
        "empty",
    ],
)
def test_broken_tables(break_it: object, message: str) -> None:
    assert message in _unreadable(break_it(_index()))  # type: ignore[operator]


def _one_block_table(contents: bytes, kind: int = 0) -> bytes:
    """A table whose index block points at one data block of ``contents``."""
    data = contents + files.trailer(contents, kind)
    metaindex = files.block([])
    meta_at = len(data)
    data += metaindex + files.trailer(metaindex)
    index = files.block([(b"\xff", files.handle(0, len(contents)))])
    index_at = len(data)
    data += index + files.trailer(index)
    return data + files.footer(
        files.handle(meta_at, len(metaindex)), files.handle(index_at, len(index))
    )


HEADER = files.header()


@pytest.mark.parametrize(
    ("contents", "message"),
    [
        (b"\0\0", "2 bytes, too short to hold its restart count"),
        ((10**6).to_bytes(4, "little"), "1000000 restart points do not fit"),
        (b"\0\0\0" + (7).to_bytes(4, "little") + (1).to_bytes(4, "little"), "restart point 0 (7)"),
        (
            files.block([(b"", HEADER)])[:-8] + b"\x05\x01\x00a" + files.block([])[-8:],
            "shares 5 bytes of a previous key of 0",
        ),
        (b"\x00\x05\x09ab" + files.block([])[-8:], "runs past its entries"),
        (b"\x00\xff\xff\xff\xff\x7f" + files.block([])[-8:], "a varint larger than 32 bits"),
        (files.block([(b"", HEADER), (b"b", b""), (b"a", b"")]), "key b'a' does not sort after"),
        (files.block([(b"", HEADER), (b"a", b""), (b"a", b"")]), "key b'a' does not sort after"),
        (files.block([(b"a", b"")]), "without a bundle header"),
        (files.block([]), "without a bundle header"),
        (files.block([(b"", b"\xff")]), "the bundle header does not parse"),
        (files.block([(b"", HEADER), (b"v", b"\x12\x05")]), "the entry of 'v' does not parse"),
        (files.block([(b"", files.header(min_consumer=2))]), "a newer TensorFlow wrote it"),
    ],
    ids=[
        "short-block",
        "restart-count",
        "restart-offset",
        "shared-too-long",
        "entry-past-end",
        "varint32",
        "unsorted",
        "duplicate",
        "no-header",
        "empty-table",
        "bad-header",
        "bad-entry",
        "newer-version",
    ],
)
def test_broken_blocks(contents: bytes, message: str) -> None:
    assert message in _unreadable(_one_block_table(contents))


def test_overlapping_data_blocks_are_refused() -> None:
    # An index pointing twice at one block would make a small file cost as much as a large one.
    contents = files.block([(b"", HEADER)])
    data = contents + files.trailer(contents)
    index = files.block([(b"a", files.handle(0, len(contents))), (b"b", files.handle(0, 3))], 1)
    table = data + index + files.trailer(index)
    table += files.footer(files.handle(0, 0), files.handle(len(data), len(index)))
    assert "data block 1 starts at byte 0, inside the block before it" in _unreadable(table)


def test_a_handle_cut_short_in_the_index() -> None:
    contents = files.block([(b"", HEADER)])
    data = contents + files.trailer(contents)
    index = files.block([(b"a", b"\x80\x80")], 1)
    table = data + index + files.trailer(index)
    table += files.footer(files.handle(0, 0), files.handle(len(data), len(index)))
    message = _unreadable(table)
    assert "the index block's handle of data block 0: a varint runs past its end" in message


def test_unknown_block_types_are_refused() -> None:
    assert "unknown block type 2" in _unreadable(_one_block_table(files.block([]), kind=2))


def test_a_huge_index_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ckpt-1.index"
    path.write_bytes(_index())
    monkeypatch.setattr(reader, "MAX_INDEX_BYTES", 100)
    with pytest.raises(UnreadableCheckpoint, match="bytes, larger than the 100 bytes tpuemb reads"):
        read_checkpoint(path)


def test_an_unreadable_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ckpt-1.index"
    path.write_bytes(_index())

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(
        UnreadableCheckpoint, match=r"ckpt-1\.index: cannot be read: Permission denied"
    ):
        read_checkpoint(path)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=2**20))
def test_arbitrary_bytes_are_a_clear_error(noise: bytes, seed: int) -> None:
    # Noise alone, and noise spliced into a real index.
    data = _index()
    at = seed % (len(data) + 1)
    for candidate in (noise, data[:at] + noise + data[at + len(noise) :]):
        with contextlib.suppress(UnreadableCheckpoint):
            parse_index(candidate, "x")


# -- snappy ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stream", "expected"),
    [
        (b"\x00", b""),
        (b"\x03\x08abc", b"abc"),
        # copy with a 1-byte offset: 4 + 1 bytes from 3 back (a run)
        (b"\x08\x08abc\x05\x03", b"abcabcab"),
        # copy with a 2-byte offset of 1: a run of one byte
        (b"\x06\x00z\x12\x01\x00", b"zzzzzz"),
        # copy with a 4-byte offset
        (b"\x05\x04xy\x0b\x02\x00\x00\x00", b"xyxyx"),
        # a literal whose length is in the next byte (tag 60)
        (b"\x41\xf0\x40" + b"q" * 65, b"q" * 65),
    ],
    ids=["empty", "literal", "copy1-run", "copy2-run", "copy4", "long-literal"],
)
def test_snappy_streams(stream: bytes, expected: bytes) -> None:
    assert decompress(stream, 1000) == expected


@pytest.mark.parametrize(
    ("stream", "message"),
    [
        (b"", "a malformed uncompressed length"),
        (b"\xff\xff\xff\xff\xff\x01", "a malformed uncompressed length"),
        (b"\x80\x80\x80\x80\x10", "a malformed uncompressed length"),
        (b"\xe9\x07", "declares 1001 uncompressed bytes, more than the 1000 allowed"),
        (b"\x03\x08ab", "a literal of 3 bytes runs past the end"),
        (b"\x03\xf4", "a literal's length runs past the end"),
        (b"\x02\x08abc", "more than the 2 bytes declared"),
        (b"\x04\x05\x03", "a copy from offset 3 with 0 bytes written"),
        (b"\x04\x00a\x06\x00\x00", "a copy from offset 0"),
        (b"\x04\x00a\x05", "a copy's offset runs past the end"),
        (b"\x04\x00a\x06\x01", "a copy's offset runs past the end"),
        (b"\x06\x00a\x15\x01\x00", "more than the 6 bytes declared"),
        (b"\x04\x00a", "1 bytes where 4 were declared"),
    ],
)
def test_broken_snappy_streams(stream: bytes, message: str) -> None:
    with pytest.raises(SnappyError) as raised:
        decompress(stream, 1000)
    assert message in str(raised.value)


def test_a_broken_snappy_block_and_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    contents = files.snappy(files.block([(b"", HEADER)]))
    assert "bad snappy data" in _unreadable(_one_block_table(contents[:-1], kind=1))
    assert _read(_one_block_table(contents, kind=1)) == {}
    from tpuemb_cli.load import sstable

    monkeypatch.setattr(sstable, "MAX_INFLATED", 3)
    assert MAX_INFLATED > 3
    assert "more than the 3 allowed" in _unreadable(_one_block_table(contents, kind=1))


@pytest.mark.parametrize(
    ("shape", "slices", "said"),
    [
        ((-1, 8), (), "a negative dimension"),
        ((10, 8), (((0, 20), (0, None)),), "a slice outside its shape"),
        ((10, 8), (((-5, 2), (0, None)),), "a slice outside its shape"),
        ((10, 8), (((0, 1 << 62), (0, None)),), "a slice outside its shape"),
    ],
    ids=["negative", "past-the-end", "negative-start", "huge-length"],
)
def test_a_corrupt_shape_is_refused(shape: tuple[int, ...], slices: Any, said: str) -> None:
    key = "embedding/t/.ATTRIBUTES/VARIABLE_VALUE"
    entries = files.bundle({key: shape}, {key: slices} if slices else None)
    with pytest.raises(UnreadableCheckpoint, match=said):
        parse_index(files.table(entries), "ckpt-1.index")
