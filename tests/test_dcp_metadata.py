"""frontends/torchrec/load/dcp_metadata: the ``.metadata`` files torch 2.13 wrote (tests/data/dcp,
made by its make_fixtures.py) read without torch to what torch itself loaded from them
(expected.json, written by the same script from ``pickle.load`` of each file)."""

from __future__ import annotations

import json
import os
import pickle
import random
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tpuemb_cli.frontends.torchrec.load import dcp_metadata as dcp
from tpuemb_cli.frontends.torchrec.load.dcp_metadata import (
    BytesEntry,
    Chunk,
    DcpMetadata,
    TensorEntry,
    UnreadableDcpMetadata,
    read_dcp_metadata,
)
from tpuemb_cli.load.pickles import PickleError, limits

DCP = Path(__file__).parent / "data" / "dcp"
EXPECTED = json.loads((DCP / "expected.json").read_text())
CASES = ("plain", "nested", "sharded", "sparsecore")


def _as_json(value: object) -> Any:
    """planner_data as make_fixtures.py wrote torch's: tuples as lists."""
    if isinstance(value, dict):
        return {str(k): _as_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_json(v) for v in value]
    return value


def _entry_json(entry: TensorEntry | BytesEntry) -> dict[str, Any]:
    if isinstance(entry, BytesEntry):
        return {"__class__": "BytesStorageMetadata"}
    return {
        "__class__": "TensorStorageMetadata",
        "properties": {"dtype": f"torch.{entry.dtype}"},
        "size": list(entry.size),
        "chunks": [
            {
                "__class__": "ChunkStorageMetadata",
                "offsets": list(c.offsets),
                "sizes": list(c.sizes),
            }
            for c in entry.chunks
        ],
    }


def _metadata_json(read: DcpMetadata) -> dict[str, Any]:
    meta = read.storage_meta
    assert meta is not None
    return {
        "__class__": "Metadata",
        "state_dict_metadata": {key: _entry_json(e) for key, e in read.entries.items()},
        "planner_data": _as_json(read.planner_data),
        "storage_meta": {
            "__class__": "StorageMeta",
            "checkpoint_id": {"__path__": meta.checkpoint_id},
            "save_id": meta.save_id,
            "load_id": meta.load_id,
            "modules": list(meta.modules),
        },
        "version": read.version,
    }


@pytest.mark.parametrize("case", CASES)
def test_fixtures_read_to_what_torch_loaded(case: str) -> None:
    read = read_dcp_metadata(DCP / f"{case}.metadata")
    assert _metadata_json(read) == EXPECTED[case]
    assert list(read.entries) == list(EXPECTED[case]["state_dict_metadata"])  # saved order
    assert read.file == str(DCP / f"{case}.metadata")


def test_what_the_fixtures_hold() -> None:
    assert EXPECTED["torch"].startswith("2.13.0")
    plain = read_dcp_metadata(DCP / "plain.metadata").entries
    assert plain["weight"] == TensorEntry("float32", (4, 3), (Chunk((0, 0), (4, 3)),))
    assert plain["half"].dtype == "bfloat16"  # type: ignore[union-attr]
    assert plain["scalar"] == TensorEntry("float64", (), (Chunk((), ()),))
    nested = read_dcp_metadata(DCP / "nested.metadata")
    assert nested.entries["optim.step"] == BytesEntry()
    assert nested.entries["model.emb.weight"].size == (10, 4)  # type: ignore[union-attr]
    assert nested.sparsecore is None
    sharded = read_dcp_metadata(DCP / "sharded.metadata")
    assert sharded.entries["rows"] == TensorEntry(
        "float32", (10, 4), (Chunk((0, 0), (5, 4)), Chunk((5, 0), (5, 4)))
    )
    assert sharded.entries["cols"].chunks[1] == Chunk((0, 3), (3, 3))  # type: ignore[union-attr]
    assert sharded.sparsecore == {"world_size": 2, "num_sc_per_device": 4}
    sparsecore = read_dcp_metadata(DCP / "sparsecore.metadata").sparsecore
    assert sparsecore is not None
    assert sparsecore["num_sc_per_device"] == 2
    stacks = sparsecore["stacked_configs"]
    assert isinstance(stacks, dict)
    assert list(stacks) == ["a_b", "c"]
    assert stacks["a_b"]["tables"][1]["shard_rotation"] == 1
    assert stacks == EXPECTED["sparsecore"]["planner_data"]["sparsecore"]["stacked_configs"]


def test_a_checkpoint_folder_reads_its_metadata(tmp_path: Path) -> None:
    folder = tmp_path / "ckpt"
    folder.mkdir()
    shutil.copyfile(DCP / "sharded.metadata", folder / ".metadata")
    read = read_dcp_metadata(folder)
    assert read.file == str(folder / ".metadata")
    assert list(read.entries) == ["rows", "cols", "replicated", "plain"]


def test_files_that_are_not_read(tmp_path: Path) -> None:
    with pytest.raises(UnreadableDcpMetadata, match=r"ckpt/\.metadata: missing"):
        read_dcp_metadata(tmp_path / "ckpt" / ".metadata")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UnreadableDcpMetadata, match=r"empty/\.metadata: missing"):
        read_dcp_metadata(tmp_path / "empty")
    link = tmp_path / "link.metadata"
    link.symlink_to(DCP / "plain.metadata")
    with pytest.raises(UnreadableDcpMetadata, match=r"link\.metadata: a symbolic link"):
        read_dcp_metadata(link)
    fifo = tmp_path / "fifo.metadata"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableDcpMetadata, match=r"fifo\.metadata: not a regular file"):
        read_dcp_metadata(fifo)


def test_a_file_larger_than_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_INPUT_BYTES", 100)
    with pytest.raises(UnreadableDcpMetadata, match=r"plain\.metadata: 1,?336 bytes, larger"):
        read_dcp_metadata(DCP / "plain.metadata")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"state_dict_metadata": {}}, "the pickle: a dict, where a Metadata is written"),
        (["x"], "the pickle: a list"),
    ],
)
def test_pickles_that_are_not_metadata(tmp_path: Path, value: object, words: str) -> None:
    file = tmp_path / ".metadata"
    file.write_bytes(pickle.dumps(value, protocol=4))
    with pytest.raises(UnreadableDcpMetadata) as raised:
        read_dcp_metadata(file)
    assert str(raised.value).startswith(f"{file}: {words}")
    assert "torch.distributed.checkpoint" in str(raised.value)


def _edited(old: bytes, new: bytes, case: str = "plain") -> bytes:
    data = (DCP / f"{case}.metadata").read_bytes()
    assert data.count(old) >= 1
    return data.replace(old, new, 1)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        # torch.float32 -> a class of another module, as dtype
        (
            _edited(b"\x8c\x05torch\x94\x8c\x07float32", b"\x8c\x05numpy\x94\x8c\x07float32"),
            "state_dict_metadata['weight'].properties.dtype: a reference to numpy.float32",
        ),
        # torch.Size -> torch.Sizf
        (_edited(b"\x8c\x04Size", b"\x8c\x04Sizf"), "state_dict_metadata['weight'].size"),
        (_edited(b"\x8c\x07version", b"\x8c\x07versioN") + b"", None),
        (b"\x80\x04N", "ends before its STOP"),
    ],
)
def test_metadata_of_another_shape(data: bytes, words: str | None) -> None:
    if words is None:
        # An unknown field is left unread; version then is not written.
        assert dcp.dcp_metadata(data, "x/.metadata").version is None
        return
    with pytest.raises(UnreadableDcpMetadata) as raised:
        dcp.dcp_metadata(data, "x/.metadata")
    assert str(raised.value).startswith("x/.metadata: ")
    assert words in str(raised.value)
    assert isinstance(raised.value, PickleError)


@pytest.mark.parametrize("case", CASES)
def test_mutated_metadata_reads_or_is_one_error(case: str) -> None:
    rng = random.Random(f"dcp-{case}")
    data = (DCP / f"{case}.metadata").read_bytes()
    started = time.monotonic()
    for _ in range(500):
        mutant = bytearray(data)
        where = rng.randrange(len(mutant))
        if rng.random() < 0.5:
            mutant[where] = rng.randrange(256)
        else:
            del mutant[where : where + rng.randint(1, 4)]
        try:
            read = dcp.dcp_metadata(bytes(mutant), f"{case}.metadata")
        except UnreadableDcpMetadata as error:
            assert str(error).startswith(f"{case}.metadata: ")
        else:
            assert isinstance(read, DcpMetadata)
    assert time.monotonic() - started < 20
