"""The FDO statistics reader and writer (tpuemb_cli/load/fdo), without numpy: files built here by
hand as jax-tpu-embedding's and torchrec's clients write them (tests/test_fdo_stats_oracle.py
checks the same against the real library), which files of a directory are read and how they are
combined, and hostile files -- each one ``FdoError`` naming the file and what is wrong."""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path

import pytest

from tpuemb_cli.load.fdo import FdoError, FdoReading, StackStats, read_fdo_stats, write_fdo_stats
from tpuemb_cli.load.fdo import files as fdo_files
from tpuemb_cli.load.fdo import npz as fdo_npz


def npy(
    descr: str,
    shape: tuple[int, ...],
    values: list[int],
    fortran: bool = False,
    version: int = 1,
    header: str | None = None,
) -> bytes:
    """A .npy as numpy writes one: magic, version, header length, a dict literal, the data."""
    text = header or f"{{'descr': {descr!r}, 'fortran_order': {fortran}, 'shape': {shape}, }}"
    start = 10 if version == 1 else 12
    encoded = (text + " " * (-(start + len(text) + 1) % 64) + "\n").encode()
    size = struct.pack("<H", len(encoded)) if version == 1 else struct.pack("<I", len(encoded))
    codes = {"i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I", "i8": "q"}
    code = codes.get(descr[1:], "q")
    order = ">" if descr.startswith(">") else "<"
    data = struct.pack(f"{order}{len(values)}{code}", *values)
    return b"\x93NUMPY" + bytes([version, 0]) + size + encoded + data


def i8(*values: int) -> bytes:
    return npy("<i8", (len(values),), list(values))


def npz(path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def jax_csv(path: Path, rows: list[tuple[str, str]]) -> Path:
    lines = ["key,values"] + [f'{key},"{values}"' for key, values in rows]
    path.write_text("\r\n".join(lines) + "\r\n")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(FdoError) as raised:
        read_fdo_stats(path)
    return str(raised.value)


# -- what is read, and how it is combined


def test_the_newest_file_of_each_process_combined_by_the_largest_value(tmp_path: Path) -> None:
    npz(tmp_path / "fdo_stats_0_5.npz", {"s_max_ids.npy": i8(90, 90, 90)})  # older: skipped
    npz(
        tmp_path / "fdo_stats_0_7.npz",
        {"s_max_ids.npy": i8(1, 8, 3), "s_max_unique_ids.npy": i8(1, 1, 1)},
    )
    npz(
        tmp_path / "fdo_stats_1_3.npz",
        {"s_max_ids.npy": i8(4, 2, 6), "s_max_unique_ids.npy": i8(2, 0, 1)},
    )
    (tmp_path / "fdo_stats_notes.npz").write_text("the glob matches, the pattern does not")
    (tmp_path / "README").write_text("neither")
    reading = read_fdo_stats(tmp_path)
    assert reading == FdoReading(
        stacks={"s": StackStats(max_ids=((4, 8, 6),), max_unique_ids=((2, 1, 1),))},
        files=(tmp_path / "fdo_stats_1_3.npz", tmp_path / "fdo_stats_0_7.npz"),
        ignored=(tmp_path / "fdo_stats_0_5.npz", tmp_path / "fdo_stats_notes.npz"),
        source="jax-npz",
    )
    stats = reading.stacks["s"]
    assert (stats.max_ids_max, stats.max_unique_ids_max) == (8, 2)
    assert (stats.required_buffer_size_max, stats.dropped) == (None, None)


def test_processes_are_told_apart_by_their_name_as_the_library_does(tmp_path: Path) -> None:
    # The process is a string ("01" and "1" are two), the time an integer (10 after 9), and the
    # pattern is searched anywhere in a name the glob matches.
    npz(tmp_path / "fdo_stats_1_9.npz", {"a_max_ids.npy": i8(1)})
    npz(tmp_path / "fdo_stats_1_10.npz", {"a_max_ids.npy": i8(2)})
    npz(tmp_path / "fdo_stats_01_1.npz", {"a_max_ids.npy": i8(3)})
    npz(tmp_path / "fdo_stats_2_4.npz.old.npz", {"a_max_ids.npy": i8(0)})
    reading = read_fdo_stats(tmp_path)
    assert [file.name for file in reading.files] == [
        "fdo_stats_2_4.npz.old.npz",
        "fdo_stats_1_10.npz",
        "fdo_stats_01_1.npz",
    ]
    assert [file.name for file in reading.ignored] == ["fdo_stats_1_9.npz"]
    assert reading.stacks["a"].max_ids == ((3,),)


def test_one_file_keeps_its_rows_and_several_give_one_row(tmp_path: Path) -> None:
    history = npy("<i8", (3, 2), [1, 5, 7, 2, 3, 3])  # three recorded batches
    counter = npy("<i8", (), [4])  # one batch's id_drop_counters: an int, saved 0-d
    buffers = npy("<i4", (2, 2), [1, 2, 3, 4], fortran=True)  # columns first: [[1, 3], [2, 4]]
    one = npz(
        tmp_path / "one.npz",
        {
            "t_max_ids.npy": history,
            "t_id_drop_counters.npy": counter,
            "t_required_buffer_size.npy": buffers,
            "t_max_unique_ids.npy": npy(">u2", (2,), [258, 1]),
        },
    )
    assert read_fdo_stats(one).stacks == {
        "t": StackStats(
            max_ids=((1, 5), (7, 2), (3, 3)),
            max_unique_ids=((258, 1),),
            required_buffer_size=((1, 3), (2, 4)),
            id_drop_counters=(4,),
        )
    }
    folder = tmp_path / "run"
    folder.mkdir()
    npz(folder / "fdo_stats_0_1.npz", {"t_max_ids.npy": history, "t_id_drop_counters.npy": counter})
    npz(folder / "fdo_stats_1_1.npz", {"t_max_ids.npy": i8(0, 9), "t_id_drop_counters.npy": i8(2)})
    stats = read_fdo_stats(folder).stacks["t"]
    assert stats == StackStats(max_ids=((7, 9),), max_unique_ids=(), id_drop_counters=(4,))
    assert (stats.max_ids_max, stats.max_unique_ids_max, stats.dropped) == (9, None, 4)


def test_npz_members_compressed_and_npy_versions_2_and_3(tmp_path: Path) -> None:
    members = {
        "a_max_ids.npy": npy("<i8", (2,), [1, 2], version=2),
        "a_max_unique_ids.npy": npy("|u1", (2,), [255, 0], version=3),
        "a_required_buffer_size": i8(7),  # np.load names a member without .npy by its name
    }
    file = npz(tmp_path / "c.npz", members, zipfile.ZIP_DEFLATED)
    assert read_fdo_stats(file).stacks["a"] == StackStats(((1, 2),), ((255, 0),), ((7,),))


def test_jax_csv_rows_of_a_key_are_one_array(tmp_path: Path) -> None:
    jax_csv(
        tmp_path / "fdo_stats_0_1.csv",
        [("s_max_ids", "1 2"), ("s_max_ids", "3 0"), ("s_max_unique_ids", "5 5")],
    )
    jax_csv(tmp_path / "fdo_stats_1_1.csv", [("s_max_ids", "0 4"), ("s_id_drop_counters", "+3")])
    reading = read_fdo_stats(tmp_path)
    assert reading.source == "jax-csv"
    assert reading.stacks == {
        "s": StackStats(max_ids=((3, 4),), max_unique_ids=((5, 5),), id_drop_counters=(3,))
    }
    assert read_fdo_stats(tmp_path / "fdo_stats_0_1.csv").stacks["s"].max_ids == ((1, 2), (3, 0))


def test_torchrec_csv_takes_the_largest_and_sums_the_drops(tmp_path: Path) -> None:
    header = "table_name,max_ids,max_unique_ids,dropped_count\r\n"
    (tmp_path / "fdo_stats_0_1.csv").write_text(header + "a,9,9,100\r\n")  # older: skipped
    (tmp_path / "fdo_stats_0_2.csv").write_text(header + "a,4,2,3\r\nb,0,0,1\r\n")
    # DictReader reads the columns by name; torchrec starts each maximum at 0.
    (tmp_path / "fdo_stats_1_1.csv").write_text(
        "dropped_count,table_name,max_unique_ids,max_ids\r\n4,a,7,1\r\n"
    )
    reading = read_fdo_stats(tmp_path)
    assert reading.source == "torchrec-csv"
    assert reading.stacks == {
        "a": StackStats(max_ids=((4,),), max_unique_ids=((7,),), id_drop_counters=(7,)),
        "b": StackStats(max_ids=((0,),), max_unique_ids=((0,),), id_drop_counters=(1,)),
    }
    assert reading.stacks["a"].dropped == 7
    # A negative count (torchrec would take 0 for it) is no statistic: refused.
    (tmp_path / "fdo_stats_0_2.csv").write_text(header + "a,4,2,3\r\nb,-5,-1,1\r\n")
    with pytest.raises(FdoError, match=r"fdo_stats_0_2\.csv:3: a negative count for `b`"):
        read_fdo_stats(tmp_path)


# -- what is written


@pytest.mark.parametrize("kind", ["npz", "csv"])
def test_written_files_read_back(tmp_path: Path, kind: str) -> None:
    stacks = {
        "a": StackStats(((1, 2), (3, 4)), ((5, 6),), ((7, 7),), (1, 2)),
        'b,"c"': StackStats(((2**63 - 1,),), ((0,),)),
    }
    write_fdo_stats(tmp_path, stacks, kind=kind)  # type: ignore[arg-type]
    (written,) = tmp_path.iterdir()
    assert fdo_files.pattern(kind).fullmatch(written.name), written.name
    assert written.name.startswith("fdo_stats_0_")
    reading = read_fdo_stats(tmp_path)
    assert reading.stacks == {
        "a": StackStats(((1, 2), (3, 4)), ((5, 6),), ((7, 7),), (1, 2)),
        'b,"c"': StackStats(((2**63 - 1,),), ((0,),)),
    }
    assert reading.source == f"jax-{kind}"
    target = tmp_path / "named" / "stats.bin"
    target.parent.mkdir()
    write_fdo_stats(target, stacks, kind=kind)  # type: ignore[arg-type]
    assert sorted(path.name for path in target.parent.iterdir()) == ["stats.bin"]
    assert read_fdo_stats(target).stacks == reading.stacks
    # A new path without an extension is a folder, as the library's clients read one.
    folder = tmp_path / "new" / "fdo"
    folder.parent.mkdir()
    write_fdo_stats(folder, stacks, kind=kind)  # type: ignore[arg-type]
    (written,) = folder.iterdir()
    assert written.name.startswith("fdo_stats_0_") and written.suffix == f".{kind}"
    with pytest.raises(FdoError, match="cannot be made a folder"):
        write_fdo_stats(tmp_path / "missing" / "fdo", stacks, kind=kind)  # type: ignore[arg-type]


def test_the_csv_written_is_the_clients_format(tmp_path: Path) -> None:
    target = tmp_path / "fdo_stats_0_1.csv"
    write_fdo_stats(target, {"s": StackStats(((1, 2), (3, 4)), ((5,),), (), (0,))}, kind="csv")
    assert target.read_bytes() == (
        b"key,values\r\ns_max_ids,1 2\r\ns_max_ids,3 4\r\ns_max_unique_ids,5\r\n"
        b"s_id_drop_counters,0\r\n"
    )


def test_writing_refuses_what_is_not_an_array_of_64_bit_integers(tmp_path: Path) -> None:
    with pytest.raises(FdoError) as raised:
        write_fdo_stats(tmp_path / "x.npz", {"s": StackStats(((1, 2), (3,)), ())}, kind="npz")
    assert str(raised.value) == f"{tmp_path}/x.npz: 's_max_ids': rows of different lengths"
    with pytest.raises(FdoError) as raised:
        write_fdo_stats(tmp_path / "x.npz", {"s": StackStats(((2**63,),), ())}, kind="npz")
    assert str(raised.value) == (
        f"{tmp_path}/x.npz: s_max_ids: 9223372036854775808 is not a 64-bit integer"
    )
    with pytest.raises(FdoError) as raised:
        write_fdo_stats(tmp_path / "missing" / "x.csv", {}, kind="csv")
    assert str(raised.value).startswith(f"{tmp_path}/missing/x.csv: cannot be written: ")
    assert list(tmp_path.iterdir()) == []  # nothing left behind


# -- hostile and malformed input


def test_an_empty_or_missing_directory(tmp_path: Path) -> None:
    (tmp_path / "fdo_stats_x.csv").write_text("key,values\n")
    assert error_of(tmp_path) == (
        f"{tmp_path}: no statistics files (fdo_stats_<process>_<time>.npz or .csv, as the FDO "
        "clients write them)"
    )
    assert (
        error_of(tmp_path / "gone") == f"{tmp_path}/gone: cannot be read: No such file or directory"
    )


def test_npz_and_csv_together_are_refused(tmp_path: Path) -> None:
    npz(tmp_path / "fdo_stats_0_1.npz", {"s_max_ids.npy": i8(1)})
    jax_csv(tmp_path / "fdo_stats_0_1.csv", [("s_max_ids", "1")])
    assert "holds both .npz and .csv statistics files" in error_of(tmp_path)


def test_jax_and_torchrec_csv_together_are_refused(tmp_path: Path) -> None:
    jax_csv(tmp_path / "fdo_stats_1_1.csv", [("s_max_ids", "1")])
    (tmp_path / "fdo_stats_0_1.csv").write_text("table_name,max_ids,max_unique_ids,dropped_count\n")
    assert error_of(tmp_path) == (
        f"{tmp_path}/fdo_stats_0_1.csv: a torchrec-csv file among jax-csv files; one library's "
        "client reads one format"
    )


HOSTILE_NPZ: dict[str, tuple[dict[str, bytes], str]] = {
    "pickle": (
        {
            "s_max_ids.npy": npy(
                "|O", (1,), [], header="{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"
            )
            + b"\x80\x04N."
        },
        (
            "!s_max_ids.npy: an object array (a pickle); statistics are integers ('<i8' as the "
            "clients write them)"
        ),
    ),
    "float": (
        {"s_max_ids.npy": npy("<f8", (1,), [0])},
        "!s_max_ids.npy: dtype '<f8'; statistics are integers ('<i8' as the clients write them)",
    ),
    "huge-shape": (
        {"s_max_ids.npy": npy("<i8", (1 << 40, 1 << 40), [])},
        (
            "!s_max_ids.npy: an array of shape (1099511627776, 1099511627776), more than the "
            "33,554,432 values tpuemb reads of one array"
        ),
    ),
    "empty-rows-of-a-huge-width": (
        {"s_max_ids.npy": npy("<i8", (1 << 60, 0), [])},
        (
            "!s_max_ids.npy: an array of shape (1152921504606846976, 0), more than the "
            "33,554,432 values tpuemb reads of one array"
        ),
    ),
    "3-D": (
        {"s_max_ids.npy": npy("<i8", (1, 1, 1), [1])},
        "!s_max_ids.npy: a 3-D array; the FDO clients write 0-, 1- and 2-D",
    ),
    "short-data": (
        {"s_max_ids.npy": npy("<i8", (3,), [1, 2])},
        "!s_max_ids.npy: shape (3,) of <i8 needs 24 bytes of data, the array has 16",
    ),
    "trailing-data": (
        {"s_max_ids.npy": i8(1) + b"x"},
        "!s_max_ids.npy: shape (1,) of <i8 needs 8 bytes of data, the array has 9",
    ),
    "not-npy": (
        {"s_max_ids.npy": b"hello"},
        "!s_max_ids.npy: not a .npy array (no \\x93NUMPY magic)",
    ),
    "header-not-a-dict": (
        {"s_max_ids.npy": npy("<i8", (1,), [1], header="__import__('os')")},
        "!s_max_ids.npy: the .npy header is not a Python dict literal",
    ),
    "header-missing-a-key": (
        {"s_max_ids.npy": npy("<i8", (1,), [1], header="{'descr': '<i8', 'shape': (1,)}")},
        "!s_max_ids.npy: the .npy header must hold exactly 'descr', 'fortran_order' and 'shape'",
    ),
    "header-too-long": (
        {"s_max_ids.npy": npy("<i8", (1,), [1], header="{" + " " * 20_000 + "}", version=2)},
        "!s_max_ids.npy: a .npy header of 20,020 bytes, more than numpy's 10,000",
    ),
    "version-4": (
        {"s_max_ids.npy": b"\x93NUMPY\x04\x00" + i8(1)[8:]},
        "!s_max_ids.npy: .npy format version 4.0; 1.0-3.0 are read",
    ),
    "a-key-twice": (
        {"s_max_ids.npy": i8(1), "s_max_ids": i8(2)},
        ": two members for the key 's_max_ids'",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE_NPZ))
def test_hostile_npz_members(tmp_path: Path, case: str) -> None:
    members, message = HOSTILE_NPZ[case]
    file = npz(tmp_path / "fdo_stats_0_1.npz", members)
    assert error_of(tmp_path) == f"{file}{message}"


def test_an_unknown_suffix_is_refused_as_the_library_refuses_it(tmp_path: Path) -> None:
    file = npz(tmp_path / "fdo_stats_0_1.npz", {"s_max_ids.npy": i8(1), "s_mean_ids.npy": i8(2)})
    assert error_of(tmp_path) == (
        f"{file}: unexpected key 's_mean_ids', expected to end with one of _max_ids, "
        "_max_unique_ids, _required_buffer_size, _id_drop_counters (jax-tpu-embedding's load() "
        "refuses it too)"
    )


def test_widths_that_differ_across_processes(tmp_path: Path) -> None:
    npz(tmp_path / "fdo_stats_0_1.npz", {"s_max_ids.npy": i8(1, 2)})
    file = npz(tmp_path / "fdo_stats_1_1.npz", {"s_max_ids.npy": i8(1, 2, 3)})
    assert error_of(tmp_path) == (
        f"{tmp_path}/fdo_stats_0_1.npz: 's_max_ids' has 2 values a row, the files read before "
        "it 3; jax-tpu-embedding's load() cannot stack them (numpy.vstack)"
    )
    assert file.exists()


def test_truncated_and_non_zip_files(tmp_path: Path) -> None:
    good = npz(tmp_path / "good.npz", {"s_max_ids.npy": i8(1, 2, 3)}).read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good[: len(good) - 30])
    assert error_of(cut) == (
        f"{cut}: not a zip file, or a truncated one (no end of central directory)"
    )
    body = tmp_path / "body.npz"
    body.write_bytes(good[:60])
    assert error_of(body).startswith(f"{body}: not a zip file, or a truncated one")
    # The directory intact, a member's bytes damaged: the CRC says so.
    damaged = tmp_path / "damaged.npz"
    at = good.index(b"\x03\x00\x00\x00\x00\x00\x00\x00")
    damaged.write_bytes(good[:at] + b"\x04" + good[at + 1 :])
    assert error_of(damaged) == (
        f"{damaged}!s_max_ids.npy: cannot be read from the zip (Bad CRC-32 for file "
        "'s_max_ids.npy')"
    )


def test_a_zip_bomb_is_not_decompressed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 16 MiB of zeros in 16 KiB; the limit lowered from 256 MiB to 8 MiB to keep the test fast.
    monkeypatch.setattr(fdo_npz, "MAX_DECODED_BYTES", 8 << 20)
    bomb = tmp_path / "bomb.npz"
    with (
        zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("s_max_ids.npy", "w", force_zip64=True) as member,
    ):
        member.write(npy("<i8", (1 << 21,), []))
        member.write(bytes(16 << 20))
    assert bomb.stat().st_size < 100_000
    assert error_of(bomb) == (
        f"{bomb}!s_max_ids.npy: declares 16,777,344 bytes, more than the 8,388,608 tpuemb "
        "decompresses from one file"
    )


def test_a_member_that_decompresses_past_its_declared_size(tmp_path: Path) -> None:
    npz_file = npz(tmp_path / "lie.npz", {"s_max_ids.npy": i8(*range(1000))}, zipfile.ZIP_DEFLATED)
    raw = bytearray(npz_file.read_bytes())
    # Both headers say 100 bytes: the reader stops there and the CRC of 100 bytes is wrong.
    size = struct.pack("<I", 8128)
    for at in [i for i in range(len(raw)) if raw[i : i + 4] == size]:
        raw[at : at + 4] = struct.pack("<I", 100)
    npz_file.write_bytes(bytes(raw))
    assert error_of(npz_file) == (
        f"{npz_file}!s_max_ids.npy: cannot be read from the zip (Bad CRC-32 for file "
        "'s_max_ids.npy')"
    )


def test_limits_on_members_and_sizes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = npz(tmp_path / "many.npz", {f"s{i}_max_ids.npy": i8(i) for i in range(5)})
    monkeypatch.setattr(fdo_npz, "MAX_MEMBERS", 4)
    assert error_of(file) == f"{file}: 5 arrays, more than the 4 read"
    monkeypatch.setattr(fdo_npz, "MAX_DIRECTORY_BYTES", 100)
    assert error_of(file) == (f"{file}: a zip directory larger than the 100 bytes tpuemb reads")
    monkeypatch.setattr(fdo_files, "MAX_FILE_BYTES", 100)
    size = file.stat().st_size
    assert error_of(file) == (
        f"{file}: {size:,} bytes, larger than the 100 bytes tpuemb reads of a statistics file"
    )


def test_links_fifos_and_directories_are_not_read(tmp_path: Path) -> None:
    real = npz(tmp_path / "real.npz", {"s_max_ids.npy": i8(1)})
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "fdo_stats_0_1.npz").symlink_to(real)
    assert error_of(folder) == (
        f"{folder}/fdo_stats_0_1.npz: a symbolic link; tpuemb reads statistics files, not links "
        "to them (copy the file, or pass the file it points to)"
    )
    (folder / "fdo_stats_0_1.npz").unlink()
    os.mkfifo(folder / "fdo_stats_0_2.npz")
    assert error_of(folder) == f"{folder}/fdo_stats_0_2.npz: not a regular file"
    (folder / "fdo_stats_0_2.npz").unlink()
    (folder / "fdo_stats_0_3.npz").mkdir()
    assert error_of(folder) == f"{folder}/fdo_stats_0_3.npz: not a regular file"
    # An older file of the process is never opened, link or not.
    (folder / "fdo_stats_0_3.npz").rmdir()
    npz(folder / "fdo_stats_0_4.npz", {"s_max_ids.npy": i8(5)})
    (folder / "fdo_stats_0_1.npz").symlink_to(real)
    assert read_fdo_stats(folder).stacks["s"].max_ids == ((5,),)


def test_unreadable_files_and_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = npz(tmp_path / "fdo_stats_0_1.npz", {"s_max_ids.npy": i8(1)})

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", denied)
    assert error_of(tmp_path) == f"{file}: cannot be opened: Permission denied"
    monkeypatch.setattr(os, "scandir", denied)
    assert error_of(tmp_path) == f"{tmp_path}: cannot list the directory: Permission denied"


HOSTILE_CSV: dict[str, tuple[str, str]] = {
    "no-header": (
        "",
        (
            ":1: neither an .npz (a zip) nor a statistics CSV: the header is '', the FDO clients "
            "write `key,values` (jax-tpu-embedding) or "
            "`table_name,max_ids,max_unique_ids,dropped_count` (torchrec)"
        ),
    ),
    "three-fields": ("key,values\ns_max_ids,1,2\n", ':2: 3 fields; a row is `key,"v1 v2 ..."`'),
    "a-float": ('key,values\ns_max_ids,"1 2.5"\n', ":2: '2.5' is not a decimal integer"),
    "blank-values": (
        'key,values\ns_max_ids," "\n',
        ":2: ' ' is not a list of integers separated by spaces",
    ),
    "no-break-space": (
        'key,values\ns_max_ids,"1\xa02"\n',
        ":2: '1\\xa02' is not a list of integers separated by spaces",
    ),
    "too-large": (
        "key,values\ns_max_ids,9223372036854775808\n",
        ":2: '9223372036854775808' does not fit in 64 bits",
    ),
    "ragged": (
        "key,values\ns_max_ids,1 2\ns_max_ids,1\n",
        (
            ":3: 's_max_ids' has 1 values here and 2 in its first row; jax-tpu-embedding's "
            "load() cannot stack them"
        ),
    ),
    "field-too-long": (
        'key,values\ns_max_ids,"' + "1 " * 70_000 + '"\n',
        ":2: not valid CSV (field larger than field limit (131072))",
    ),
    "unknown-suffix": (
        "key,values\ns_ids,1\n",
        (
            ": unexpected key 's_ids', expected to end with one of _max_ids, _max_unique_ids, "
            "_required_buffer_size, _id_drop_counters (jax-tpu-embedding's load() refuses it too)"
        ),
    ),
    "torchrec-short-row": (
        "table_name,max_ids,max_unique_ids,dropped_count\na,1,2\n",
        ":2: the row has no dropped_count (torchrec's load() fails)",
    ),
    "torchrec-not-an-integer": (
        "table_name,max_ids,max_unique_ids,dropped_count\na,1,2,x\n",
        ":2: 'x' is not an integer",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE_CSV))
def test_hostile_csv(tmp_path: Path, case: str) -> None:
    text, message = HOSTILE_CSV[case]
    file = tmp_path / "fdo_stats_0_1.csv"
    file.write_text(text, encoding="utf-8")
    assert error_of(tmp_path) == f"{file}{message}"


def test_csv_that_is_not_utf8(tmp_path: Path) -> None:
    file = tmp_path / "fdo_stats_0_1.csv"
    file.write_bytes(b"key,values\n\xff_max_ids,1\n")
    assert error_of(file) == f"{file}: not UTF-8 text (byte 11)"


@pytest.mark.parametrize("kind", ["npz", "csv"])
def test_a_negative_count_is_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / f"fdo_stats_0_1.{kind}"
    write_fdo_stats(target, {"s": StackStats(((3, -5),), ((1, 1),))}, kind=kind)  # type: ignore[arg-type]
    with pytest.raises(FdoError, match="`s_max_ids` holds -5: the statistics count ids"):
        read_fdo_stats(tmp_path)
