"""`tpuemb diff --against-checkpoint` of an Orbax checkpoint on disk (tests/data/orbax: written by
Orbax itself, see its README), and the reader under it (tpuemb_cli/load/orbax): what each layout
makes of the stacks the checkpoint holds, roots and steps, and hostile checkpoints -- each one
clear error and exit 2."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.load.checkpoint_state import UnreadableCheckpoint
from tpuemb_cli.load.orbax import is_orbax, read_orbax

DATA = Path(__file__).resolve().parent / "data" / "orbax"
ADAM = DATA / "adam_manager" / "ckpt"
ADAGRAD = DATA / "adagrad_manager" / "ckpt"
SGD = DATA / "sgd_standard" / "ckpt"
SAVED = (ADAM / "7" / "embedding_spec" / "embedding_spec.pbtxt").read_text()


def _diff(
    checkpoint: Path, layout: str, tmp_path: Path, *extra: str
) -> tuple[int, list[dict[str, Any]], str]:
    new = tmp_path / "new.pbtxt"
    new.write_text(layout)
    result = CliRunner().invoke(
        main,
        [
            "diff",
            "--isolated",
            "--format",
            "json",
            *extra,
            "--against-checkpoint",
            str(checkpoint),
            str(new),
        ],
    )
    changes = json.loads(result.stdout)["changes"] if result.stdout.strip() else []
    return result.exit_code, changes, result.stderr


def _kinds(changes: list[dict[str, Any]]) -> list[str]:
    return sorted(change["kind"] for change in changes)


def _with_optimizer(text: str, optimizer: str) -> str:
    """The saved layout with each table's optimizer recorded (0.2.0's protos do)."""
    return text.replace(
        "    padded_embedding_dim: 16\n",
        f"    padded_embedding_dim: 16\n    optimizer {{ type: {optimizer} }}\n",
    )


def test_the_reader_matches_what_orbax_reads_back() -> None:
    for case in ("adagrad_manager", "adam_manager", "sgd_standard"):
        expected = json.loads((DATA / case / "expected.json").read_text())
        checkpoint = read_orbax(DATA / case / "ckpt")
        assert checkpoint.step == expected["step"]
        for name, item in expected["items"].items():
            (read,) = [i for i in checkpoint.items if i.name == name]
            if "arrays" not in item:  # the proto item
                assert read.proto is not None, case
                assert (
                    read.proto[0].endswith(item["file"]) and "stacked_table_specs" in read.proto[1]
                )
                continue
            arrays = {str(a.path): a for a in read.arrays if not a.skipped}
            assert set(arrays) == set(item["arrays"]), case
            for key, want in item["arrays"].items():
                assert list(arrays[key].shape or ()) == want["shape"]
                assert list(arrays[key].write_shape or ()) == want["write_shape"]
                sharding = arrays[key].sharding
                assert sharding is not None
                assert [list(a) or None for a in sharding.spec] == [
                    None if axis is None else [axis] for axis in want["sharding"]["partition_spec"]
                ]
            skipped = [str(a.path) for a in read.arrays if a.skipped]
            assert sorted(skipped) == sorted(item.get("none_leaves", {})), case


def test_a_layout_against_the_checkpoint_it_was_written_with_is_no_change(tmp_path: Path) -> None:
    for checkpoint in (ADAM, ADAM / "7", ADAGRAD):
        code, changes, stderr = _diff(checkpoint, SAVED, tmp_path)
        assert (code, changes, stderr) == (0, [], "")


def test_the_same_optimizer_recorded_is_no_change(tmp_path: Path) -> None:
    code, changes, _ = _diff(ADAM, _with_optimizer(SAVED, "ADAM"), tmp_path)
    assert (code, changes) == (0, [])


@pytest.mark.parametrize("optimizer", ["FTRL", "ADAGRAD", "ADAGRAD_MOMENTUM", "SGD"])
def test_slots_restore_by_name(tmp_path: Path, optimizer: str) -> None:
    """Adam's `momentum`, `velocity` on disk: any other optimizer's slots refuse the tree, as
    many arrays (FTRL) or not."""
    code, changes, _ = _diff(ADAM, _with_optimizer(SAVED, optimizer), tmp_path)
    assert code == 1
    assert _kinds(changes) == ["restore-error"]
    assert "restores slots by name" in changes[0]["message"]
    assert "`momentum`, `velocity`" in changes[0]["message"]


def test_a_shape_change_is_a_restore_error_with_orbaxs_words(tmp_path: Path) -> None:
    grown = SAVED.replace("stack_vocab_size: 768", "stack_vocab_size: 1024").replace(
        "padded_vocab_size: 512", "padded_vocab_size: 768"
    )
    code, changes, _ = _diff(ADAM, grown, tmp_path)
    assert code == 1
    errors = [c for c in changes if c["kind"] == "restore-error"]
    assert len(errors) == 1
    assert (
        "Requested shape: (1024, 16) is not compatible with the stored shape: (768, 16)"
        in (errors[0]["message"])
    )
    assert errors[0]["line"] == 3  # stack_vocab_size of the new file


def test_a_renamed_stack_is_one_restore_error(tmp_path: Path) -> None:
    code, changes, _ = _diff(ADAM, SAVED.replace('"user_item"', '"users_items"'), tmp_path)
    assert code == 1
    assert _kinds(changes) == ["restore-error"]
    assert "renamed" in changes[0]["message"]


def test_a_same_shape_relayout_is_a_silent_reinit_where_the_proto_is_saved(
    tmp_path: Path,
) -> None:
    moved = SAVED.replace("row_offset_in_shard: 16", "row_offset_in_shard: 0").replace(
        "shard_rotation: 4", "shard_rotation: 0"
    )
    code, changes, _ = _diff(ADAM, moved, tmp_path)
    assert code == 1
    assert "silent-reinit" in _kinds(changes)
    assert "restore-error" not in _kinds(changes)
    # A change with no value on either side shows none (not `(none) -> (none)`).
    for fmt in ("github", "full", "sarif"):
        result = CliRunner().invoke(
            main,
            [
                "diff",
                "--isolated",
                "--format",
                fmt,
                "--against-checkpoint",
                str(ADAM),
                str(tmp_path / "new.pbtxt"),
            ],
        )
        assert "(none) -> (none)" not in result.stdout, fmt
        assert "silent-reinit" in result.stdout


def test_without_a_saved_proto_a_same_shape_stack_is_unverified(tmp_path: Path) -> None:
    code, changes, _ = _diff(SGD, SAVED, tmp_path)
    assert code == 0  # a warning: not in the default --fail-on
    assert _kinds(changes) == ["unverified-layout"]
    assert "holds no EmbeddingSpecProto" in changes[0]["message"]
    moved = SAVED.replace("row_offset_in_shard: 16", "row_offset_in_shard: 0")
    assert _kinds(_diff(SGD, moved, tmp_path)[1]) == ["unverified-layout"]


def test_without_a_saved_proto_shapes_and_names_still_refuse(tmp_path: Path) -> None:
    code, changes, _ = _diff(SGD, SAVED.replace('"user_item"', '"other"'), tmp_path)
    assert code == 1
    assert _kinds(changes) == ["restore-error", "restore-error"]  # one gained, one lost
    code, changes, _ = _diff(SGD, _with_optimizer(SAVED, "ADAGRAD"), tmp_path)
    assert _kinds(changes) == ["restore-error"]
    assert "holds 0 slot arrays" in changes[0]["message"]


def test_the_help_gives_the_way_across(tmp_path: Path) -> None:
    moved = SAVED.replace("num_sparsecores: 32", "num_sparsecores: 16")
    _, changes, _ = _diff(ADAM, moved, tmp_path)
    helps = {c["kind"]: c["help"] for c in changes}
    assert "unstack_and_unshard_stacked_tables" in helps["silent-reinit"]
    # The stacks are under `params`, not the NNX layer's `embedding_table`: no converter.
    assert "embedding_table" in helps["silent-reinit"]


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "ckpt"
    shutil.copytree(source, target, symlinks=True)
    return target


def test_a_manager_root_gives_its_latest_step_or_the_one_asked(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    shutil.copytree(root / "7", root / "12")
    (root / "12" / "params" / "_METADATA").write_text("{}")  # step 12 is the latest, broken
    (root / "20.orbax-checkpoint-tmp-1795925266").mkdir()  # being written: never picked
    assert read_orbax(root, step=7).step == 7
    with pytest.raises(UnreadableCheckpoint, match="tree_metadata"):
        read_orbax(root)
    code, changes, stderr = _diff(root, SAVED, tmp_path, "--step", "7")
    assert (code, changes) == (0, [])
    code, _, stderr = _diff(root, SAVED, tmp_path, "--step", "8")
    assert code == 2 and "no step 8 (steps: 7, 12)" in stderr


@pytest.mark.parametrize(
    "harm",
    [
        "truncated metadata",
        "not json",
        "huge metadata",
        "metadata is a link",
        "metadata is a fifo",
        "item folder missing",
        "item is a file",
        "bad sharding",
        "deep json",
        "bad key path",
        "bad write_shape",
        "proto is a link",
    ],
)
def test_a_hostile_checkpoint_is_one_clear_error(tmp_path: Path, harm: str) -> None:
    root = _copy(ADAM, tmp_path)
    step = root / "7"
    metadata = step / "params" / "_METADATA"
    if harm == "truncated metadata":
        metadata.write_bytes(metadata.read_bytes()[:100])
    elif harm == "not json":
        metadata.write_bytes(b"\x00\xff garbage")
    elif harm == "huge metadata":
        with metadata.open("wb") as stream:
            stream.truncate(65 * 1024 * 1024)
    elif harm == "metadata is a link":
        metadata.unlink()
        metadata.symlink_to("/etc/passwd")
    elif harm == "metadata is a fifo":
        metadata.unlink()
        os.mkfifo(metadata)
    elif harm == "item folder missing":
        shutil.rmtree(step / "params")
    elif harm == "item is a file":
        shutil.rmtree(step / "params")
        (step / "params").write_text("x")
    elif harm == "bad sharding":
        (step / "params" / "_sharding").write_text('{"!!!": "{}"}')
    elif harm == "deep json":
        metadata.write_text("[" * 100_000 + "]" * 100_000)
    elif harm == "bad key path":
        metadata.write_text('{"tree_metadata": {"x": {"key_metadata": [{"key": null}]}}}')
    elif harm == "bad write_shape":
        data = json.loads(metadata.read_text())
        for entry in data["tree_metadata"].values():
            entry["value_metadata"]["write_shape"] = [-1, "x"]
        metadata.write_text(json.dumps(data))
    elif harm == "proto is a link":
        proto = step / "embedding_spec" / "embedding_spec.pbtxt"
        proto.unlink()
        proto.symlink_to("/etc/passwd")
    code, changes, stderr = _diff(root, SAVED, tmp_path)
    assert code == 2, (harm, stderr)
    assert changes == []
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    assert str(step) in stderr or str(root) in stderr


def test_a_step_directory_that_is_a_file_or_missing(tmp_path: Path) -> None:
    file = tmp_path / "7"
    file.write_text("x")
    code, _, stderr = _diff(file, SAVED, tmp_path)
    assert code == 2 and "not a checkpoint" in stderr
    code, _, stderr = _diff(tmp_path / "nowhere", SAVED, tmp_path)
    assert code == 2 and "no such file or folder" in stderr


def test_tensorflow_and_orbax_are_told_apart(tmp_path: Path) -> None:
    assert is_orbax(ADAM) and is_orbax(ADAM / "7") and is_orbax(SGD)
    tensorflow = Path(__file__).resolve().parent / "data" / "real-repo" / "tree" / "ckpt"
    assert not is_orbax(tensorflow) and not is_orbax(tensorflow / "ckpt-1.index")
    assert not is_orbax(tmp_path)
    # A TensorFlow config against an Orbax checkpoint: nothing in common, exit 2.
    config = tmp_path / "config.pbtxt"
    config.write_text('table_descriptor { name: "t" vocabulary_size: 8 dimension: 4 }\n')
    result = CliRunner().invoke(
        main, ["diff", "--isolated", "--against-checkpoint", str(ADAM), str(config)]
    )
    assert result.exit_code == 2
    assert "an Orbax checkpoint" in result.stderr
    # A stacked layout against a TensorFlow checkpoint: the same.
    layout = tmp_path / "layout.pbtxt"
    layout.write_text(SAVED)
    result = CliRunner().invoke(
        main, ["diff", "--isolated", "--against-checkpoint", str(tensorflow), str(layout)]
    )
    assert result.exit_code == 2
    assert "Orbax writes, not TensorFlow" in result.stderr


def test_options_that_go_with_the_other_format(tmp_path: Path) -> None:
    new = tmp_path / "new.pbtxt"
    new.write_text(SAVED)
    runner = CliRunner()
    result = runner.invoke(
        main,
        ["diff", "--against-checkpoint", str(ADAM), "--checkpoint-prefix", "x", str(new)],
    )
    assert result.exit_code == 2 and "--checkpoint-prefix" in result.stderr
    result = runner.invoke(main, ["diff", "--step", "3", str(new), str(new)])
    assert result.exit_code == 2 and "--step goes with --against-checkpoint" in result.stderr


SPEC = (DATA / "adam_manager" / "layout.spec.textproto").read_text()


def test_a_spec_with_a_jax_section_against_the_checkpoint(tmp_path: Path) -> None:
    """Through the layout compile --target jax makes of it, each table's optimizer named."""

    def spec_diff(text: str) -> tuple[int, list[dict[str, Any]]]:
        new = tmp_path / "new.spec.textproto"
        new.write_text(text)
        result = CliRunner().invoke(
            main,
            ["diff", "--isolated", "--format", "json", "--against-checkpoint", str(ADAM), str(new)],
        )
        return result.exit_code, json.loads(result.stdout)["changes"]

    assert spec_diff(SPEC) == (0, [])
    code, changes = spec_diff(SPEC.replace("AdamOptimizerSpec", "FTRLOptimizerSpec"))
    assert code == 1 and _kinds(changes) == ["restore-error"]
    assert changes[0]["field"] == "tables[0]" and changes[0]["line"] == 4
    code, changes = spec_diff(SPEC.replace("num_sc_per_device: 4", "num_sc_per_device: 2"))
    assert code == 1 and "restore-error" in _kinds(changes)


def test_the_store_gives_each_arrays_dtype_and_agrees_with_the_sharding() -> None:
    expected = json.loads((DATA / "adam_manager" / "expected.json").read_text())
    (params,) = [i for i in read_orbax(ADAM).items if i.name == "params"]
    assert params.store == ""
    for array in params.arrays:
        assert array.dtype == expected["items"]["params"]["arrays"][str(array.path)]["dtype"]


def test_without_zstandard_shapes_come_from_the_shardings_and_the_note_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tpuemb_cli.load import orbax_store

    monkeypatch.setattr(orbax_store, "zstd_available", lambda: False)
    checkpoint = read_orbax(ADAM)
    (params,) = [i for i in checkpoint.items if i.name == "params"]
    assert {a.shape for a in params.arrays} == {(768, 16)}
    assert {a.dtype for a in params.arrays} == {None}
    assert any("tpuemb[orbax]" in note for note in checkpoint.notes)
    code, changes, stderr = _diff(ADAM, SAVED, tmp_path)
    assert (code, changes) == (0, [])
    # diff says what it did not read, on stderr
    assert "tpuemb: item `params`: the OCDBT store is not read (it is zstd-compressed" in stderr


def test_a_store_read_leaves_nothing_to_say(tmp_path: Path) -> None:
    code, changes, stderr = _diff(ADAM, SAVED, tmp_path)
    assert (code, changes, stderr) == (0, [], "")


def test_a_store_that_contradicts_the_sharding_is_refused(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    sharding = root / "7" / "params" / "_sharding"
    sharding.write_text(sharding.read_text().replace("[8]", "[4]"))
    with pytest.raises(UnreadableCheckpoint, match="metadata disagree"):
        read_orbax(root)


def test_an_optimizer_whose_slots_the_layout_does_not_name_is_unverified(tmp_path: Path) -> None:
    """CUSTOM (LaProp, in the library's proto): Orbax restores only if its slots are the
    checkpoint's, which the proto does not say. A layout that records no optimizer (0.1.0)
    says nothing of slots, as between two layouts."""
    code, changes, _ = _diff(ADAM, _with_optimizer(SAVED, "CUSTOM"), tmp_path)
    assert code == 0 and _kinds(changes) == ["unverified-layout"]
    assert "`momentum`, `velocity`" in changes[0]["message"]
    assert _diff(ADAM, SAVED, tmp_path)[:2] == (0, [])


# What a hostile review found (each once a pass, a traceback or a misleading message).


def test_a_proto_item_that_is_no_layout_does_not_hide_the_saved_one(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    step = root / "7"
    meta = json.loads((step / "_CHECKPOINT_METADATA").read_text())
    meta["item_handlers"]["config"] = "orbax.checkpoint.ProtoCheckpointHandler"
    (step / "_CHECKPOINT_METADATA").write_text(json.dumps(meta))
    (step / "config").mkdir()
    (step / "config" / "config.pbtxt").write_text("learning_rate: 0.1\nbatch_size: 64\n")
    moved = SAVED.replace("shard_rotation: 4", "shard_rotation: 5")
    code, changes, _ = _diff(root, moved, tmp_path)
    assert code == 1 and "silent-reinit" in _kinds(changes)
    # Two layouts: which one the arrays were written with is not known.
    (step / "config" / "config.pbtxt").write_text(SAVED)
    code, _, stderr = _diff(root, moved, tmp_path)
    assert code == 2 and "2 EmbeddingSpecProtos" in stderr


def test_an_unreadable_saved_layout_is_said(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    (root / "7" / "embedding_spec" / "embedding_spec.pbtxt").write_text("garbage {{{")
    changes = _diff(root, SAVED, tmp_path)[1]
    assert _kinds(changes) == ["unverified-layout"]
    assert "hold no readable EmbeddingSpecProto" in changes[0]["message"]


def test_a_shape_no_file_says_is_no_pass(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A replicated array's write_shape is one replica's slice: without the store (zstandard)
    and without a saved layout its shape is unknown, and diff says it cannot compare."""
    from tests.orbax_files import write_step
    from tpuemb_cli.load import orbax_store

    monkeypatch.setattr(orbax_store, "zstd_available", lambda: False)
    step = write_step(tmp_path / "ckpt" / "3", {"params": [(("user_item", "table"), (768, 16))]})
    sharding = step / "params" / "_sharding"
    sharding.write_text(sharding.read_text().replace('\\"sparsecore\\", null', "null, null"))
    code, _, stderr = _diff(tmp_path / "ckpt", SAVED, tmp_path)
    assert code == 2 and "not in the checkpoint's JSON files" in stderr


def test_a_checkpoint_without_slots_does_not_restore_an_optimizer_with_some(
    tmp_path: Path,
) -> None:
    from tests.orbax_files import write_step

    write_step(tmp_path / "ckpt" / "3", {"params": [(("user_item", "table"), (768, 16))]})
    code, changes, _ = _diff(tmp_path / "ckpt", _with_optimizer(SAVED, "ADAM"), tmp_path)
    assert code == 1 and _kinds(changes) == ["restore-error"]
    assert "holds 0 slot arrays" in changes[0]["message"]


def test_steps_are_named_as_orbax_names_them(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    shutil.copytree(ADAGRAD / "100", root / "07")  # no step: Orbax writes no leading zero
    assert (_diff(root, SAVED, tmp_path, "--step", "7")[0]) == 0
    shutil.copytree(ADAGRAD / "100", root / "checkpoint_7")
    code, _, stderr = _diff(root, SAVED, tmp_path)
    assert code == 2 and "two step directories for step 7" in stderr
    shutil.rmtree(root / "checkpoint_7")
    shutil.copytree(ADAGRAD / "100", root / "checkpoint_9")
    code, _, stderr = _diff(root, SAVED, tmp_path)
    assert code == 2 and "several step prefixes" in stderr


def test_the_latest_step_is_never_skipped_for_an_older_one(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    shutil.copytree(ADAGRAD / "100", root / "9")
    (root / "9" / "_CHECKPOINT_METADATA").unlink()  # its items are still there
    code, changes, _ = _diff(root, _with_optimizer(SAVED, "ADAM"), tmp_path)
    assert code == 1 and "`accumulator`" in changes[0]["message"]


def test_a_linked_step_directory_is_refused(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    shutil.move(root / "7", tmp_path / "elsewhere")
    (root / "7").symlink_to(tmp_path / "elsewhere")
    code, _, stderr = _diff(root, SAVED, tmp_path)
    assert code == 2 and "symbolic link" in stderr


def test_a_report_is_never_written_into_the_checkpoint(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    target = root / "7" / "_CHECKPOINT_METADATA"
    before = target.read_bytes()
    code, _, stderr = _diff(root, SAVED, tmp_path, "--output-file", str(target))
    assert code == 2 and "inside the checkpoint" in stderr
    assert target.read_bytes() == before


def test_a_sequence_key_that_is_no_ascii_number_is_refused(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    metadata = root / "7" / "params" / "_METADATA"
    data = json.loads(metadata.read_text())
    entry = next(iter(data["tree_metadata"].values()))
    entry["key_metadata"][0] = {"key": "\u00b2", "key_type": 1}
    metadata.write_text(json.dumps(data))
    code, _, stderr = _diff(root, SAVED, tmp_path)
    # Read as the key it is written as (no stack of the layout is there any more).
    assert code == 1 and "internal error" not in stderr


def test_any_file_name_the_proto_handler_was_given(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    item = root / "7" / "embedding_spec"
    (item / "embedding_spec.pbtxt").rename(item / "layout.textproto")
    assert _diff(root, SAVED, tmp_path)[:2] == (0, [])
    (item / "notes.txt").write_text("x")
    code, _, stderr = _diff(root, SAVED, tmp_path)
    assert code == 2 and "2 files" in stderr


def test_a_store_that_is_not_there_does_not_restore(tmp_path: Path) -> None:
    root = _copy(ADAM, tmp_path)
    (root / "7" / "params" / "manifest.ocdbt").unlink()
    code, _, stderr = _diff(root, SAVED, tmp_path)
    assert code == 2 and "manifest.ocdbt is missing" in stderr


def test_an_unreadable_item_is_named(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads a folder whatever its mode")
    root = _copy(ADAM, tmp_path)
    (root / "7" / "params").chmod(0)
    try:
        code, _, stderr = _diff(root, SAVED, tmp_path)
    finally:
        (root / "7" / "params").chmod(0o755)
    assert code == 2 and "params" in stderr
