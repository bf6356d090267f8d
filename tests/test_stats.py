"""`tpuemb stats`: the preprocessing's plan in plain Python (slicing, buffers, what a full buffer
drops), a case worked by hand, and the command on real files -- whole outputs, and every bad
input an exit 2 that says what is wrong (tests/test_jax_stats_oracle.py holds the counts against
the library itself)."""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.frontends.jax.spec.stats.plan import (
    Devices,
    FeaturePlan,
    StackPlan,
    StatsError,
    coo_buffer_per_device,
    fill_drops,
    slicing,
    unmatched,
)

ROOT = Path(__file__).parent.parent
PROTO = ROOT / "examples" / "jax" / "recommender.stacked.pbtxt"
HEADER = (
    "# proto-message: third_party.py.jax_tpu_embedding.sparsecore_lib_proto.EmbeddingSpecProto\n"
)


def _stack(*batches: int, ids: int = 256, unique: int = 256, suggested: int | None = None) -> Any:
    features = tuple(
        FeaturePlan(f"f{i}", sum(batches[:i]), 0, 0, batch) for i, batch in enumerate(batches)
    )
    return StackPlan("s", features, ids, unique, suggested)


def test_each_sparse_core_reads_whole_slices_and_the_rest_no_one() -> None:
    devices = Devices(global_devices=4, local_devices=2, per_device=2)
    # 2 local devices x 2 SparseCores: 19 rows are 4 slices of 4 (3 rows left unread), 14 rows
    # 4 slices of 3; a device's batch is 19 // 2 + 14 // 2.
    cut = slicing(_stack(19, 14), [19, 14], devices)
    assert cut.per_slice == (4, 3)
    assert cut.batch_per_device == 16
    assert cut.batch_per_sparse_core == 8
    assert cut.sample_bases == (0, 19 // 8)


def test_a_device_batch_the_sparse_cores_do_not_divide_aborts() -> None:
    devices = Devices(global_devices=1, local_devices=1, per_device=4)
    with pytest.raises(
        StatsError, match=r"a device's batch is 6 samples .* not a multiple of its 4"
    ):
        slicing(_stack(6), [6], devices)
    with pytest.raises(StatsError, match="fewer than its 4 SparseCores x 2 features"):
        slicing(_stack(4, 0), [4, 0], devices)


def test_the_partitions_must_be_a_power_of_two() -> None:
    assert Devices(3, 3, 2).refusal() == (
        "6 SparseCores in all (3 devices x 2): the preprocessing aborts unless it is a power of 2 "
        "(Check failed in PreprocessSparseDenseMatmulInput)"
    )
    assert Devices(4, 8, 2).refusal() == "8 local devices of 4: more than there are"
    assert Devices(4, 2, 4).refusal() is None


def test_the_coo_buffer_is_the_librarys() -> None:
    devices = Devices(global_devices=2, local_devices=2, per_device=4)
    # RoundUpTo(max_ids, 8) x S x SparseCores; a suggestion rounded up to 8 x S.
    assert coo_buffer_per_device(_stack(8, ids=13), devices) == 16 * 4 * 8
    assert coo_buffer_per_device(_stack(8, ids=13, suggested=33), devices) == 64
    with pytest.raises(StatsError, match="above the most its limits allow"):
        coo_buffer_per_device(_stack(8, ids=1, suggested=300), devices)


def test_a_full_buffer_drops_from_the_first_id_that_does_not_fit() -> None:
    # Partitions start aligned to 8: 3 ids take 8, 9 take 16.
    assert fill_drops([3, 9, 1], 32) == 0
    assert fill_drops([3, 9, 1], 24) == 1
    assert fill_drops([3, 9, 1], 12) == 6
    assert fill_drops([0, 0, 5], 0) == 5


def test_unmatched_features_both_ways() -> None:
    assert unmatched([_stack(8, 8)], ["f1", "other"]) == (["f0"], ["other"])


def _proto(folder: Path, ids: int = 256, unique: int = 256) -> Path:
    """One stack of one feature on 1 device of 2 SparseCores."""
    path = folder / "one.pbtxt"
    path.write_text(
        HEADER
        + f"""stacked_table_specs {{
  stack_name: "s" stack_vocab_size: 16 stack_embedding_dim: 8 total_sample_count: 4
  max_ids_per_partition: {ids} max_unique_ids_per_partition: {unique} num_sparsecores: 2
  table_specs {{
    table_name: "t" vocab_size: 16 embedding_dim: 8 padded_vocab_size: 16
    padded_embedding_dim: 8
    feature_specs {{ feature_name: "f" input_shape: 4 input_shape: 3 output_shape: 4
      output_shape: 8 }}
  }}
}}
"""
    )
    return path


def _stats(*args: str) -> Any:
    return CliRunner().invoke(main, ["stats", *args])


def test_a_case_worked_by_hand(tmp_path: Path) -> None:
    # Samples 0, 1 go to SparseCore 0 and 2, 3 to SparseCore 1; an id's partition is its low
    # bit. SparseCore 0: partition 0 holds (0, 0) twice -- one id -- and (0, 2); partition 1
    # (1, 1). SparseCore 1: partition 0 (2, 2); partition 1 (2, 3) and (3, 3) twice.
    (tmp_path / "f.csv").write_text("0 0 2\n1\n2,3\n3 3\n")
    result = _stats(str(tmp_path / "f.csv"), str(_proto(tmp_path, 1, 1)), "--format", "json",
                    "--sparsecores-per-device", "2")  # fmt: skip
    assert result.exit_code == 0, result.output
    stack = json.loads(result.stdout)["stacks"]["s"]
    assert stack["max_ids"] == [2, 2]
    assert stack["max_unique_ids"] == [2, 1]
    assert stack["required_buffer_size"] == [16, 16]
    # At limits of 1: (0, 2) past both (1 id), (3, 3) past max_ids (2 ids, the repeat counted).
    assert stack["id_drop_counters"] == 3
    assert stack["aborts_without_id_dropping"] is True
    assert stack["required_buffer_size_per_device"] == 32


def test_text_report(tmp_path: Path) -> None:
    (tmp_path / "f.npy").write_bytes(_npy([[0, 0, 2], [1, 1, 1], [2, 3, 5], [3, 3, 9]]))
    result = _stats(str(tmp_path), str(_proto(tmp_path)), "--tpu", "v6e")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"{tmp_path / 'one.pbtxt'}: the statistics jax-tpu-embedding's preprocessing computes, "
        "on 1 local device of 1, 2 SparseCores a device (2 partitions)\n"
        "\n"
        "stack s: 12 ids read\n"
        "  max ids a partition                    4  (max_ids_per_partition 256)\n"
        "  max unique ids a partition             3  (max_unique_ids_per_partition 256)\n"
        "  required buffer a device              32  (the COO buffer: 1,024, 3.1% of it used)\n"
        "  no id dropped at these limits\n"
    )


def test_text_report_escapes_control_characters(tmp_path: Path) -> None:
    (tmp_path / "f.npy").write_bytes(_npy([[0], [1], [2], [3]]))
    spec = tmp_path / "e\x1b[31m\nx.pbtxt"
    spec.write_text(_proto(tmp_path).read_text().replace('"s"', '"s\\x1b[2J\\nstack t"'))
    result = _stats(str(tmp_path), str(spec), "--tpu", "v6e")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout
    assert result.stdout.splitlines()[0].startswith(f"{tmp_path}/e\\x1b[31m\\nx.pbtxt: the ")
    assert result.stdout.splitlines()[2] == "stack s\\x1b[2J\\nstack t: 4 ids read"
    result = _stats(str(tmp_path), str(spec), "--tpu", "v6e", "--format", "json")
    assert json.loads(result.stdout)["spec"] == str(spec)


def _npy(rows: list[list[int]]) -> bytes:
    np = pytest.importorskip("numpy")
    import io

    buffer = io.BytesIO()
    np.save(buffer, np.array(rows, dtype=np.int64))
    return buffer.getvalue()


def test_fdo_output_is_written(tmp_path: Path) -> None:
    from tpuemb_cli.load.fdo import read_fdo_stats

    (tmp_path / "ids").mkdir()
    (tmp_path / "ids" / "f.csv").write_text("0 0 2\n1\n2,3\n3 3\n")
    for kind in ("npz", "csv"):
        out = tmp_path / kind
        out.mkdir()
        result = _stats(str(tmp_path / "ids"), str(_proto(tmp_path, 1, 1)), "-o", str(out),
                        "--fdo-format", kind, "--sparsecores-per-device", "2")  # fmt: skip
        assert result.exit_code == 0, result.output
        (written,) = out.iterdir()
        assert written.name.startswith("fdo_stats_0_") and written.suffix == f".{kind}"
        stats = read_fdo_stats(out).stacks["s"]
        assert stats.max_ids == ((2, 2),)
        assert stats.id_drop_counters == (3,)


def test_a_csv_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    outputs = []
    for text in ("0 0 2\n1\n2,3\n3 3\n", "\ufeff0 0 2\n1\n2,3\n3 3\n"):
        (tmp_path / "f.csv").write_text(text, encoding="utf-8")
        result = _stats(str(tmp_path / "f.csv"), str(_proto(tmp_path)), "--format", "json",
                        "--sparsecores-per-device", "2")  # fmt: skip
        assert result.exit_code == 0, result.output
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]


def _written(tmp_path: Path, *args: str) -> Any:
    """`stats -o ...` of one feature's ids (in tmp_path/ids) and the spec tmp_path/one.pbtxt."""
    if not (tmp_path / "ids").is_dir():
        (tmp_path / "ids").mkdir()
        (tmp_path / "ids" / "f.csv").write_text("0 0 2\n1\n2,3\n3 3\n")
        _proto(tmp_path)
    return _stats(str(tmp_path / "ids"), str(tmp_path / "one.pbtxt"), "--sparsecores-per-device",
                  "2", *args)  # fmt: skip


def _refused(result: Any, message: str) -> None:
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr == f"tpuemb: error: {message}\n"


def test_o_refuses_special_files_and_links(tmp_path: Path) -> None:
    import stat

    _written(tmp_path)
    targets = [tmp_path / "fifo"]
    os.mkfifo(targets[0])
    try:  # a device like /dev/null, which -o replaced by a zip (never tested on /dev/null)
        os.mknod(tmp_path / "dev1", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        targets.append(tmp_path / "dev1")
    except (PermissionError, AttributeError):
        pass
    for target in targets:
        _refused(
            _written(tmp_path, "-o", str(target)),
            f"-o {target}: not a regular file or a "
            "folder (a FIFO, a device or a socket); statistics are written to a folder or "
            "a file, never through a special file",
        )
        assert not stat.S_ISREG(target.lstat().st_mode)
    (tmp_path / "out").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "out")
    _refused(
        _written(tmp_path, "-o", str(tmp_path / "link")),
        f"-o {tmp_path / 'link'}: a "
        "symbolic link; tpuemb writes statistics to the folder or file itself: name it",
    )
    assert list((tmp_path / "out").iterdir()) == []


def test_o_refuses_its_inputs_and_the_ids_folders(tmp_path: Path) -> None:
    _written(tmp_path)
    spec, ids = tmp_path / "one.pbtxt", tmp_path / "ids"
    before = spec.read_bytes()
    _refused(
        _written(tmp_path, "-o", str(spec)),
        f"-o {spec} is an input: the statistics would replace it",
    )
    result = _stats(
        str(ids / "f.csv"), str(spec), "--sparsecores-per-device", "2", "-o", str(ids / "f.csv")
    )
    _refused(result, f"-o {ids / 'f.csv'} is an input: the statistics would replace it")
    _refused(
        _written(tmp_path, "-o", str(ids)),
        f"-o {ids} is an ids folder: the next run "
        "would read the statistics as ids; write them elsewhere",
    )
    _refused(
        _written(tmp_path, "-o", str(ids / "s.npz")),
        f"-o {ids / 's.npz'} is in an ids "
        "folder: the next run would read the statistics as ids; write them elsewhere",
    )
    assert spec.read_bytes() == before
    assert sorted(p.name for p in ids.iterdir()) == ["f.csv"]


def test_o_refuses_stdout_the_current_folder_and_the_other_formats_name(
    tmp_path: Path, monkeypatch: Any
) -> None:
    _written(tmp_path)
    monkeypatch.chdir(tmp_path)  # where `-o -` made a folder `-` and `-o ''` wrote
    for given in ("-", ""):
        _refused(
            _written(tmp_path, "-o", given),
            f"-o {given!r}: the statistics are written to "
            "a folder or a file, not to stdout or the current folder: name one (-o fdo/)",
        )
    for name, kind in (("out.csv", "npz"), ("out.npz", "csv")):
        other = "csv" if kind == "npz" else "npz"
        _refused(
            _written(tmp_path, "-o", str(tmp_path / name), "--fdo-format", kind),
            f"-o {tmp_path / name}: a .{other} name for {kind} statistics; a reader would "
            f"take it for the {other} client's file: name it .{kind}",
        )
        assert not (tmp_path / name).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ids", "one.pbtxt"]
    assert _written(tmp_path, "-o", str(tmp_path / "out.npz")).exit_code == 0


def test_o_refuses_a_folder_of_the_other_format(tmp_path: Path) -> None:
    from tpuemb_cli.load.fdo import read_fdo_stats

    out = tmp_path / "out"
    assert _written(tmp_path, "-o", str(out)).exit_code == 0
    (npz,) = out.iterdir()
    _refused(
        _written(tmp_path, "-o", str(out), "--fdo-format", "csv"),
        f"-o {out}: holds .npz "
        f"statistics files ({npz.name}); a .csv file beside them would leave the folder "
        "unreadable (a client reads one format): write .npz here, or into another folder",
    )
    assert list(out.iterdir()) == [npz]
    assert read_fdo_stats(out).stacks["s"].max_ids == ((2, 2),)


def test_process_index_names_each_hosts_file(tmp_path: Path) -> None:
    from tpuemb_cli.load.fdo import read_fdo_stats

    out = tmp_path / "out"
    for process in ("0", "1"):
        assert _written(tmp_path, "-o", str(out), "--process-index", process).exit_code == 0
    names = sorted(p.name for p in out.iterdir())
    assert [name.split("_")[2] for name in names] == ["0", "1"]
    # The library reads each process's newest file: both hosts' files, neither hiding the other.
    reading = read_fdo_stats(out)
    assert sorted(p.name for p in reading.files) == names
    assert reading.ignored == ()
    result = _written(tmp_path, "-o", str(out), "--process-index", "-1")
    assert result.exit_code == 2


def test_long_csv_and_ragged_npz(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    (tmp_path / "ids").mkdir()
    (tmp_path / "ids" / "all.csv").write_text(
        "feature,sample,id,weight\nf,0,0,1\nf,0,0,1\nf,0,2,1\nf,1,1,1\nf,2,2,1\nf,2,3,1\nf,3,3,1\n"
        "f,3,3,1\n"
    )
    np.savez(tmp_path / "r.npz", **{"f.values": np.array([0, 0, 2, 1, 2, 3, 3, 3]),
                                    "f.row_splits": np.array([0, 3, 4, 6, 8])})  # fmt: skip
    outputs = []
    for ids in (tmp_path / "ids", tmp_path / "r.npz"):
        result = _stats(str(ids), str(_proto(tmp_path, 1, 1)), "--format", "json",
                        "--sparsecores-per-device", "2")  # fmt: skip
        assert result.exit_code == 0, result.output
        outputs.append(json.loads(result.stdout)["stacks"])
    assert outputs[0] == outputs[1]
    assert outputs[0]["s"]["max_ids"] == [2, 2]


def _bad(tmp_path: Path, name: str, content: bytes, *extra: str) -> str:
    (tmp_path / name).write_bytes(content)
    result = _stats(str(tmp_path / name), str(_proto(tmp_path)), "--sparsecores-per-device", "2",
                    *extra)  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    return str(result.stderr)


def test_bad_inputs_exit_2_with_a_message(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    import io
    import pickle

    pickled = io.BytesIO()
    np.save(pickled, np.array([[1], [2]], dtype=object), allow_pickle=True)
    assert "f.npy: an array of Python objects, which tpuemb never unpickles" in (
        _bad(tmp_path, "f.npy", pickled.getvalue())
    )
    huge = _npy_of(np.zeros(4, np.int64)).replace(b"(4,)", b"(4000000000,)")
    assert "header says (4000000000,) int64 (32,000,000,000 bytes), more than the file" in (
        _bad(tmp_path, "f.npy", huge)
    )
    assert "f.npz!f: its header says (4000000000,) int64" in _bad(
        tmp_path, "f.npz", _zipped("f.npy", huge)
    )
    assert "f.npy: float64 values; ids are integers" in _bad(
        tmp_path, "f.npy", _npy_of(np.zeros((4, 1)))
    )
    assert "f.npy: id -1, outside [0, 2**31)" in _bad(
        tmp_path, "f.npy", _npy_of(np.array([[1], [-1], [2], [3]]))
    )
    assert "f.npy: an array of 3 dimensions" in _bad(
        tmp_path, "f.npy", _npy_of(np.zeros((2, 2, 2), int))
    )
    # The library segfaults on a 1-D array (v0.1.0): refused, not counted as (samples, 1).
    assert (
        "f.npy: a 1-D array (4,); the library's preprocessing takes (samples, ids) and crashes "
        "on a 1-D array: reshape it to (samples, 1)"
    ) in _bad(tmp_path, "f.npy", _npy_of(np.arange(4)))
    assert "f.npz!f: a 1-D array (4,)" in _bad(tmp_path, "f.npz", _npz_of(f=np.arange(4)))
    assert "cannot be read as npy" in _bad(tmp_path, "f.npy", b"\x93NUMPY junk")
    assert "f.csv:2: 'x' is not an id" in _bad(tmp_path, "f.csv", b"1 2\nx\n")
    assert "not UTF-8 text" in _bad(tmp_path, "f.csv", b"\xff\xfe\n")
    assert "cannot be read as npz" in _bad(tmp_path, "f.npz", b"PK\x03\x04 not a zip")
    assert "would take the ids read past 10 bytes" in _bad(
        tmp_path, "f.npy", _npy_of(np.zeros((4, 1), int)), "--max-ids-size", "10"
    )
    # --max-ids-size counts the ids as int64: 100 uint8 ids are 800 bytes, not the file's 228.
    small = _npy_of(np.zeros((100, 1), np.uint8))
    assert len(small) < 500
    assert "f.npy: 800 bytes would take the ids read past 500 bytes (--max-ids-size counts" in (
        _bad(tmp_path, "f.npy", small, "--max-ids-size", "500")
    )
    assert "f.npz!f: 800 bytes would take the ids read past 500 bytes" in _bad(
        tmp_path, "f.npz", _npz_of(f=np.zeros((100, 1), np.uint8)), "--max-ids-size", "500"
    )
    # A long CSV's sample number is a count of rows: 10**12 would be 16 TB of row lengths.
    for sample in ("300000000", "1000000000000"):
        assert (
            f"f.csv (feature f): sample {int(sample):,} makes {int(sample) + 1:,} samples, whose "
            "row lengths would take the ids read past --max-ids-size 1,000,000 bytes"
        ) in _bad(tmp_path, "f.csv", f"feature,sample,id\nf,0,1\nf,{sample},2\n".encode(),
                  "--max-ids-size", "1000000")  # fmt: skip
    assert (
        "g.npz!f.row_lengths: row length -5, outside [0, 2**31): a sample holds 0 or more ids"
    ) in _bad(tmp_path, "g.npz", _npz_of(**{"f.values": np.zeros(4, int),
                                            "f.row_lengths": np.array([5, 4, -5, 0])}))  # fmt: skip
    # A bad token is shown cut, not whole; int()'s "1_0" and other scripts' digits are no ids.
    long_token = _bad(tmp_path, "f.csv", b"1\n" + b"x" * 5000 + b"\n")
    assert "f.csv:2: 'xxxxxxxxxxxxxxxxxxxx" in long_token
    assert "(5,002 characters) is not an id" in long_token
    assert len(long_token) < 300
    assert "f.csv:3: '1_0' is not an id" in _bad(tmp_path, "f.csv", b"1\n2\n1_0\n3\n")
    assert "f.csv:1: '\u0661' is not an id" in _bad(tmp_path, "f.csv", "\u0661\n2\n3\n4\n".encode())
    assert (
        "f.csv:2: expected 3 cells, feature,sample,id, the sample and id integers; found "
        "'f,1,\u0661'"
    ) in _bad(tmp_path, "f.csv", "feature,sample,id\nf,1,\u0661\n".encode())
    both = _npz_of(
        f=np.zeros((4, 1), int), **{"f.values": np.zeros(4, int), "f.row_lengths": np.ones(4, int)}
    )
    assert "f.npz!f: a feature given whole and as f.row_lengths, f.values: give one" in _bad(
        tmp_path, "f.npz", both
    )
    assert "the samples hold 3 ids and .values has 4" in _bad(tmp_path, "g.npz", _npz_of(**{
        "f.values": np.zeros(4, int), "f.row_lengths": np.ones(3, int)}))  # fmt: skip
    assert "no ids for 'f'" in _bad(tmp_path, "g.npy", _npy_of(np.zeros((4, 1), int)))
    assert pickle  # the pickle protocol numpy used above


def _npy_of(array: Any) -> bytes:
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _zipped(name: str, data: bytes) -> bytes:
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def _npz_of(**arrays: Any) -> bytes:
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("f.npy", b"\0" * 50_000_000)
    result = _stats(str(path), str(_proto(tmp_path)), "--sparsecores-per-device", "2",
                    "--max-ids-size", "1000000")  # fmt: skip
    assert result.exit_code == 2
    assert "50,000,000 bytes would take the ids read past 1,000,000 bytes" in result.stderr


def test_the_devices_must_be_known(tmp_path: Path) -> None:
    (tmp_path / "f.csv").write_text("1\n2\n3\n4\n")
    result = _stats(str(tmp_path / "f.csv"), str(_proto(tmp_path)))
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "an EmbeddingSpecProto does not say how many SparseCores a device has: give --tpu "
        "(v5p, v6e, ...) or --sparsecores-per-device\n"
    )
    result = _stats(str(tmp_path / "f.csv"), str(PROTO), "--tpu", "v5p")
    assert result.exit_code == 2
    assert "no ids for 'user_id', 'item_id', 'country_id'" in result.stderr
    assert "ignored: 'f', not features of" in result.stderr


def test_a_config_is_no_jax_spec(tmp_path: Path) -> None:
    (tmp_path / "f.csv").write_text("1\n")
    result = _stats(str(tmp_path / "f.csv"), str(ROOT / "examples" / "recommender.pbtxt"))
    assert result.exit_code == 2
    assert "not a jax-tpu-embedding spec" in result.stderr


def test_without_numpy_it_says_which_extra(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    (tmp_path / "f.csv").write_text("1\n")
    result = _stats(str(tmp_path / "f.csv"), str(PROTO))
    assert result.exit_code == 2
    assert result.stderr == "tpuemb: error: tpuemb stats needs numpy: pip install 'tpuemb[stats]'\n"


# Each spec's features and batches, and its SparseCores a device.
SPECS = {
    "alone": ({"watch_b": 32, "user": 32, "watch_a": 64}, 4),
    "auto": ({"query": 64, "history": 64, "country": 64, "category": 64, "clicks": 524288}, 2),
    "explicit": ({"fa": 128, "fb": 128, "fc": 128}, 2),
}


@pytest.mark.parametrize("layout", sorted(SPECS))
@pytest.mark.slow
def test_a_spec_counts_as_the_proto_it_compiles_to(layout: str, tmp_path: Path) -> None:
    # tests/data/jax/compile: a spec with a `jax` section and the library's own proto of it.
    np = pytest.importorskip("numpy")
    folder = ROOT / "tests" / "data" / "jax" / "compile"
    rng = np.random.default_rng(3)
    ids = tmp_path / "ids.npz"
    batches, per_device = SPECS[layout]
    np.savez(ids, **{name: rng.zipf(1.5, size=(rows, 2)) % 100 for name, rows in batches.items()})
    outputs = []
    for spec, extra in (
        (folder / f"{layout}.spec.textproto", ()),
        (folder / f"{layout}.library.pbtxt", ("--sparsecores-per-device", str(per_device))),
    ):
        result = _stats(str(ids), str(spec), "--format", "json", *extra)
        assert result.exit_code == 0, result.output
        outputs.append(json.loads(result.stdout)["stacks"])
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) >= 1


def test_a_spec_disagreeing_with_the_options_is_refused(tmp_path: Path) -> None:
    spec = ROOT / "tests" / "data" / "jax" / "compile" / "alone.spec.textproto"
    (tmp_path / "f.csv").write_text("1\n")
    result = _stats(str(tmp_path / "f.csv"), str(spec), "--sparsecores-per-device", "2")
    assert result.exit_code == 2
    assert result.stderr.endswith("its jax section says 4 SparseCores a device, not 2\n")


def _reference(stack: Any, features: dict[str, Any], devices: Devices) -> tuple[Any, ...]:
    """The library's loops, written out as its C++ runs them (input_preprocessing.cc,
    sort_and_group_coo_tensors_impl.h, input_preprocessing_util.cc), one id at a time."""
    local, per, n = devices.local_devices, devices.per_device, devices.num_scs
    rows = [len(features[f.name]) for f in stack.features]
    batch = sum(r // local for r in rows)
    per_sc = batch // per
    mod = n - 1
    theoretical = -(-stack.max_ids_per_partition // 8) * 8 * per * n
    share = theoretical // per
    max_ids, max_unique, required, dropped = [], [], [], 0
    for device in range(local):
        ids_row, unique_row = [0] * n, [0] * n
        for sc in range(per):
            coos = []
            for feature, count in zip(stack.features, rows, strict=True):
                split = count // (local * per)
                start = (device * per + sc) * split
                offset = sc * per_sc + feature.row_offset // n
                for row in range(start, start + split):
                    for i in features[feature.name][row]:
                        col = ((i + feature.col_shift) & mod) + (i & ~mod) + feature.col_offset
                        coos.append((col & mod, col, row - start + offset))
            coos.sort()
            seen = [0] * n
            seen_cols = [0] * n
            kept_ids = [0] * n
            last_added = last = None
            dropping_col = False
            for p, col, sample in coos:
                if (col, sample) == last_added:
                    continue  # MaybeMerge
                if (col, sample) == last:
                    dropped += 1  # a repeat of a dropped id
                    continue
                new_col = last is None or col != last[0]
                ids_row_sc = seen[p] + 1 > stack.max_ids_per_partition
                if new_col:
                    dropping_col = seen_cols[p] + 1 > stack.max_unique_ids_per_partition
                if ids_row_sc or dropping_col:
                    dropped += 1
                else:
                    kept_ids[p] += 1
                    last_added = (col, sample)
                seen[p] += 1
                seen_cols[p] += new_col
                last = (col, sample)
            ids_row = [max(a, b) for a, b in zip(ids_row, seen, strict=True)]
            unique_row = [max(a, b) for a, b in zip(unique_row, seen_cols, strict=True)]
            required.append(sum(-(-v // 8) * 8 for v in seen))
            dropped += fill_drops(kept_ids, share)
        max_ids += ids_row
        max_unique += unique_row
    return tuple(max_ids), tuple(max_unique), tuple(required), dropped


@pytest.mark.parametrize("seed", range(48))
def test_the_counting_is_the_librarys_loops(seed: int) -> None:
    np = pytest.importorskip("numpy")
    from tpuemb_cli.frontends.jax.load.ids import FeatureIds
    from tpuemb_cli.frontends.jax.spec.stats.compute import stack_stats

    rng = np.random.default_rng(seed)
    # (global devices, local devices, SparseCores a device): 2 to 128 partitions.
    shapes = [(1, 1, 2), (2, 2, 2), (4, 2, 4), (8, 8, 1), (16, 4, 2), (64, 2, 2)]
    devices = Devices(*shapes[seed % len(shapes)])
    n = devices.num_scs
    features, plans, offset = {}, [], 0
    shards = [0, 3, 10]
    for index in range(rng.integers(1, 4)):
        rows = devices.local_devices * devices.per_device * int(rng.integers(1, 5))
        rows += int(rng.integers(0, devices.local_devices))  # rows no SparseCore reads
        vocab = int(rng.choice([3, 50, 1000]))
        features[f"f{index}"] = [
            [int(v) for v in rng.zipf(1.4, size=int(rng.integers(0, 5))) % vocab]
            for _ in range(rows)
        ]
        global_rows = rows * devices.global_devices // devices.local_devices
        plans.append(FeaturePlan(f"f{index}", offset, shards[index] * n, index % n, global_rows))
        offset += global_rows
    batch = sum(len(v) // devices.local_devices for v in features.values())
    if batch % devices.per_device or batch < devices.per_device * len(plans):
        pytest.skip("a batch the library aborts on")
    limits = [int(rng.choice([1, 2, 5, 256])) for _ in range(2)]
    stack = StackPlan("s", tuple(plans), limits[0], limits[1])
    ids = {
        name: FeatureIds(
            np.array([i for row in rows for i in row], dtype=np.int64),
            np.concatenate(([0], np.cumsum([len(row) for row in rows]))).astype(np.int64),
        )
        for name, rows in features.items()
    }
    got = stack_stats(stack, ids, devices)
    assert (got.max_ids, got.max_unique_ids, got.required_buffer_size, got.id_drop_counters) == (
        _reference(stack, features, devices)
    )


def test_a_folder_is_its_ids_files_and_not_its_notes(tmp_path: Path) -> None:
    (tmp_path / "ids").mkdir()
    (tmp_path / "ids" / "f.csv").write_text("0\n1\n2\n3\n")
    (tmp_path / "ids" / "README.txt").write_text("sampled on Monday\n")
    result = _stats(str(tmp_path / "ids"), str(_proto(tmp_path)), "--sparsecores-per-device", "2")
    assert result.exit_code == 0, result.output
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("1\n")
    result = _stats(str(tmp_path / "empty"), str(_proto(tmp_path)), "--tpu", "v6e")
    assert result.exit_code == 2
    assert (
        result.stderr == f"tpuemb: error: {tmp_path / 'empty'}: no .npy, .npz or .csv file in it\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_an_ids_path_that_is_no_regular_file_is_refused(tmp_path: Path) -> None:
    spec = str(_proto(tmp_path))
    (tmp_path / "ids").mkdir()
    (tmp_path / "ids" / "g.csv").write_text("0\n1\n2\n3\n")
    os.mkfifo(tmp_path / "ids" / "f.npy")  # read, it would hang forever
    expected = f"tpuemb: error: {tmp_path / 'ids' / 'f.npy'}: a FIFO, not an ids file; ids files "
    for given in (tmp_path / "ids", tmp_path / "ids" / "f.npy"):
        result = _stats(str(given), spec, "--sparsecores-per-device", "2")
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == expected + "are regular files\n"
    (tmp_path / "ids" / "f.npy").unlink()
    (tmp_path / "ids" / "f.npy").mkdir()  # skipped unsaid, it was "no ids for 'f'"
    result = _stats(str(tmp_path / "ids"), spec, "--sparsecores-per-device", "2")
    assert (result.exit_code, result.stderr) == (
        2,
        f"tpuemb: error: {tmp_path / 'ids' / 'f.npy'}: a directory, not an ids file; ids files "
        "are regular files\n",
    )
    (tmp_path / "ids" / "f.npy").rmdir()
    (tmp_path / "f.csv").write_text("0\n1\n2\n3\n")
    (tmp_path / "ids" / "f.csv").symlink_to(tmp_path / "f.csv")
    for given in (tmp_path / "ids", tmp_path / "ids" / "f.csv"):
        result = _stats(str(given), spec, "--sparsecores-per-device", "2")
        assert (result.exit_code, result.stderr) == (
            2,
            f"tpuemb: error: {tmp_path / 'ids' / 'f.csv'}: a symbolic link, not an ids file; name "
            "the file it points to\n",
        )


# The modules that import numpy: `tpuemb stats`'s, and no other (numpy is its extra alone).
NUMPY_MODULES = {
    "tpuemb_cli/cli/stats.py",  # only to say which extra is missing, inside the command
    "tpuemb_cli/frontends/jax/load/ids.py",
    "tpuemb_cli/frontends/jax/spec/stats/compute.py",
}


@pytest.mark.slow
def test_only_the_stats_command_imports_numpy() -> None:
    import ast

    found = set()
    for path in sorted((ROOT / "tpuemb_cli").rglob("*.py")):
        if "pb" in path.relative_to(ROOT / "tpuemb_cli").parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(name == "numpy" or name.startswith("numpy.") for name in names):
                found.add(path.relative_to(ROOT).as_posix())
    assert found == NUMPY_MODULES
    # Listing the commands, or the command's help, imports none of them.
    script = (
        "import sys; from click.testing import CliRunner; from tpuemb_cli.cli import main; "
        "CliRunner().invoke(main, ['--help']); CliRunner().invoke(main, ['stats', '--help']); "
        "print('numpy' in sys.modules)"
    )
    import subprocess

    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert run.stdout == "False\n", run.stderr
