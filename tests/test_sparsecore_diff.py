"""`tpuemb diff` of SparseCore specs (TPUEmbeddingV2), without TensorFlow: two specs, and a spec
against the checkpoint TensorFlow wrote (tests/data/sparsecore_checkpoint, its own oracle's
fixture); and a checkpoint broken in the ways the layouts' reader must survive. What TensorFlow
does in each case is tests/test_tf_sparsecore_diff.py's (make test-tf)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests import checkpoint_files
from tpuemb_cli.cli import main
from tpuemb_cli.frontends.tensorflow.compat import restore
from tpuemb_cli.load.sstable import Table, crc32c, mask
from tpuemb_cli.pb.framework import tensor_bundle_pb2
from tpuemb_cli.pb.layouts import SparseCoreTableLayout, SparseCoreTableLayouts

FIXTURE = Path(__file__).parent / "data" / "sparsecore_checkpoint"
SPEC = (FIXTURE / "model.spec.yaml").read_text()


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURE / "ckpt", tmp_path / "ckpt")
    (tmp_path / "old.yaml").write_text(SPEC)
    return tmp_path


def kinds(result: Result) -> list[tuple[str, str | None, int | None]]:
    return [(c["kind"], c["table"], c["line"]) for c in json.loads(result.stdout)["changes"]]


def test_a_spec_against_itself_and_its_own_checkpoint_is_no_change(here: Path) -> None:
    for args in (["old.yaml", "old.yaml"], ["--against-checkpoint", "ckpt", "old.yaml"]):
        result = invoke("diff", *args)
        assert (result.exit_code, result.stdout, result.stderr) == (
            0,
            "No changes (1 file pair compared).\n",
            "",
        )


def test_a_table_grown_past_its_padding_does_not_restore(here: Path) -> None:
    (here / "new.yaml").write_text(SPEC.replace("vocabulary_size: 50,", "vocabulary_size: 100,"))
    for args in (["old.yaml", "new.yaml"], ["--against-checkpoint", "ckpt", "new.yaml"]):
        result = invoke("diff", "--format", "concise", *args)
        assert result.exit_code == 1
        first, second, summary = result.stdout.splitlines()
        assert first == (
            "new.yaml:7:15: TE951 [error] restore-error: restoring stack `a_b` (256 x 8) fails "
            "(`b`: rows 50 -> 100 (padded 64 -> 128)): into the built embedding: "
            "InvalidArgumentError: shape in shape_and_slice spec [256,8] does not match the shape "
            "stored in checkpoint: [192,8]; before it is built: the checkpoint adapter pads each "
            "table's saved rows by its new padding, so `b` no longer fill the stack (ValueError: "
            "the initial value's shape is not compatible with the explicitly supplied `shape` "
            "argument, or InvalidArgumentError from ConcatOp)"
        )
        # Before build, the adapter re-lays out `c` too, and its slot restarts.
        assert second.startswith("new.yaml:8:5: TE952 [error] silent-reinit: stack `c` restores")
        assert (
            summary == "Found 2 changes: 1 restore-error, 1 silent-reinit (1 file pair compared)."
        )


def test_a_table_added_or_removed_is_refused_by_the_layouts_keys(here: Path) -> None:
    added = SPEC.replace(
        "  - {name: c, vocabulary_size: 40, dim: 16}\n",
        "  - {name: c, vocabulary_size: 40, dim: 16}\n  - {name: d, vocabulary_size: 30, dim: 8}\n",
    ).replace(
        "  - {name: f_c, table: c, output_shape: [16]}\n",
        "  - {name: f_c, table: c, output_shape: [16]}\n"
        "  - {name: f_d, table: d, output_shape: [16]}\n",
    )
    (here / "new.yaml").write_text(added)
    assert kinds(invoke("diff", "--format", "json", "old.yaml", "new.yaml")) == [
        ("restore-error", "d", 9)
    ]
    assert kinds(invoke("diff", "--format", "json", "new.yaml", "old.yaml")) == [
        ("restore-error", "d", 9)  # placed in the old file, new.yaml here
    ]
    against = invoke("diff", "--format", "json", "--against-checkpoint", "ckpt", "new.yaml")
    assert kinds(against) == [("restore-error", "d", 9)]
    assert "Layouts in checkpoint and embedding must have the same keys" in against.stdout


def test_another_optimizer_restarts_the_new_slots_and_orphans_the_old(here: Path) -> None:
    (here / "new.yaml").write_text(SPEC.replace("{adagrad: {}", "{adam: {}"))
    # All at the spec's optimizer, which every table trains with.
    expected = [
        ("silent-reinit", "a_b", 4),
        ("silent-reinit", "a_b", 4),
        ("silent-reinit", "c", 4),
        ("silent-reinit", "c", 4),
        ("orphaned-state", "a_b", 4),
        ("orphaned-state", "c", 4),
        ("training-change", "a_b", 4),
        ("training-change", "c", 4),
    ]
    assert kinds(invoke("diff", "--format", "json", "old.yaml", "new.yaml")) == expected
    # A checkpoint does not say which optimizer wrote it: its slots do.
    against = invoke("diff", "--format", "json", "--against-checkpoint", "ckpt", "new.yaml")
    assert kinds(against) == [k for k in expected if k[0] != "training-change"]


def test_another_learning_rate_is_a_training_change_at_the_optimizer(here: Path) -> None:
    (here / "new.yaml").write_text(SPEC.replace("constant: 0.1}", "constant: 0.2}"))
    result = invoke("diff", "--format", "json", "old.yaml", "new.yaml")
    assert result.exit_code == 0
    assert kinds(result) == [("training-change", "a_b", 4), ("training-change", "c", 4)]
    changes = json.loads(result.stdout)["changes"]
    assert [c["field"] for c in changes] == ["optimizer", "optimizer"]
    assert changes[0]["old"] == "adagrad { } learning_rate { constant: 0.1 }"


def test_the_first_features_batch_restarts_the_slots_when_restored_before_build(
    here: Path,
) -> None:
    (here / "new.yaml").write_text(
        SPEC.replace(
            "{name: f_a, table: a, output_shape: [16]}", "{name: f_a, table: a, output_shape: [32]}"
        )
    )
    result = invoke("diff", "--format", "json", "old.yaml", "new.yaml")
    assert kinds(result) == [("silent-reinit", "c", 8), ("silent-reinit", "a_b", 10)]
    changes = json.loads(result.stdout)["changes"]
    assert changes[1]["field"] == "features[0]"
    assert "recorded batch size per SparseCore 4 -> 8" in changes[1]["message"]


def test_more_partitions_change_the_topology_and_every_stack(here: Path) -> None:
    (here / "new.yaml").write_text(SPEC.replace("cores_per_host: 2", "cores_per_host: 4"))
    result = invoke("diff", "--format", "json", "old.yaml", "new.yaml")
    assert kinds(result) == [
        ("restore-error", "a_b", 13),
        ("restore-error", "c", 13),
        ("topology-change", None, 13),
    ]


def test_stacking_turned_off_leaves_the_old_stack_behind(here: Path) -> None:
    (here / "new.yaml").write_text(
        SPEC.replace("sparse_core: {}", "sparse_core: {disable_table_stacking: true}")
    )
    result = invoke("diff", "--format", "json", "old.yaml", "new.yaml")
    assert kinds(result) == [
        ("silent-reinit", "c", 8),  # its slots, before build: the layouts of a and b differ
        ("silent-reinit", "a", 19),  # at `disable_table_stacking`
        ("silent-reinit", "b", 19),
        ("orphaned-state", "a_b", 6),  # in the old file
    ]
    fields = [c["field"] for c in json.loads(result.stdout)["changes"]]
    assert fields[1:3] == ["sparse_core.disable_table_stacking"] * 2


def _data(here: Path) -> Path:
    return here / "ckpt" / "ckpt-1.data-00000-of-00001"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("checksum", "is corrupt (its length or its checksum is wrong)"),
        ("content", "does not hold SparseCoreTableLayouts"),
        ("truncated", "a truncated checkpoint"),
    ],
)
def test_a_damaged_layouts_string_is_an_error_naming_the_file(
    here: Path, damage: str, message: str
) -> None:
    path = _data(here)
    data = bytearray(path.read_bytes())
    start = data.index(b"a_b")  # inside the layouts (the string's only text)
    if damage == "checksum":
        data[start - 8] ^= 0xFF  # the checksum, or the length, before the message's first bytes
    elif damage == "content":
        data[start - 4 : start + 20] = b"\xff" * 24
    else:
        data = data[: start - 1]
    path.write_bytes(bytes(data))
    result = invoke("diff", "--against-checkpoint", "ckpt", "old.yaml")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("tpuemb: error: ") and message in result.stderr
    assert "Traceback" not in result.output


def _with_layouts(here: Path, layouts: bytes) -> None:
    """The fixture's checkpoint with ``layouts`` as its `_sparse_core_table_layouts` (appended to
    its data file, written as TensorFlow writes a string; the index rewritten to point at it)."""
    index = here / "ckpt" / "ckpt-1.index"
    data = _data(here)
    held = data.read_bytes()
    length = len(layouts).to_bytes(4, "little")
    payload = checkpoint_files.varint(len(layouts)) + mask(crc32c(length)).to_bytes(4, "little")
    payload += layouts
    entries = []
    for name, value in Table(index.read_bytes()).items():
        if name.endswith(b"_sparse_core_table_layouts/.ATTRIBUTES/VARIABLE_VALUE"):
            entry = tensor_bundle_pb2.BundleEntryProto.FromString(value)
            entry.offset, entry.size = len(held), len(payload)
            value = entry.SerializeToString()
        entries.append((name, value))
    data.write_bytes(held + payload)
    index.write_bytes(checkpoint_files.table(entries))


def test_a_checkpoint_with_layouts_tensorflow_does_not_write_is_an_error(here: Path) -> None:
    _with_layouts(here, _layouts())
    assert invoke("diff", "--against-checkpoint", "ckpt", "old.yaml").exit_code == 0  # rewritten
    for damage, why in (
        ({"unsharded_shape": [100]}, "a shape that is not [rows, dim]"),
        ({"num_sparse_cores": 0}, "no SparseCores or no partitions"),
        ({"stacked_table_name": ""}, "no table or stack name"),
    ):
        layouts = SparseCoreTableLayouts.FromString(_layouts())
        table = layouts.tables[0]
        for field, value in damage.items():
            table.ClearField(field)
            if isinstance(value, list):
                getattr(table, field).extend(value)
            elif value:
                setattr(table, field, value)
        _with_layouts(here, layouts.SerializeToString())
        result = invoke("diff", "--against-checkpoint", "ckpt", "old.yaml")
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("tpuemb: error: ") and why in result.stderr
        assert "Traceback" not in result.output


def _layouts() -> bytes:
    from tpuemb_cli.load.checkpoint import read_checkpoint
    from tpuemb_cli.load.checkpoint_strings import read_string

    checkpoint = read_checkpoint(FIXTURE / "ckpt")
    return read_string(
        checkpoint, "embedding/_sparse_core_table_layouts/.ATTRIBUTES/VARIABLE_VALUE"
    )


def test_a_prefix_without_layouts_is_an_error(here: Path) -> None:
    result = invoke(
        "diff", "--against-checkpoint", "ckpt", "--checkpoint-prefix", "model", "old.yaml"
    )
    assert result.exit_code == 2
    assert "no object `model` holds TPUEmbeddingV2's `_sparse_core_table_layouts`" in result.stderr


def _layout(name: str, rows: int, padded: int, offset: int, rotation: int) -> SparseCoreTableLayout:
    return SparseCoreTableLayout(
        table_name=name,
        stacked_table_name="a_b",
        num_sparse_cores=8,
        num_partitions=2,
        total_rows_per_sparse_core_shard=32,
        unsharded_shape=[rows, 8],
        unsharded_padded_shape=[padded, 8],
        sparse_core_shard_row_offset=offset,
        sparse_core_shard_rotation=rotation,
    )


def test_the_adapters_rows_add_up_only_when_every_partition_gets_its_rows() -> None:
    # a 100 -> 150 rows (padded 128 -> 192), b 100 -> 50 (128 -> 64): the saved rows padded by
    # the new padding still fill the stack (TensorFlow restores, rows shifted); b alone grown
    # does not (TensorFlow raises).
    old = {"a": _layout("a", 100, 128, 0, 0), "b": _layout("b", 100, 128, 16, 4)}
    new = [_layout("a", 150, 192, 0, 0), _layout("b", 50, 64, 24, 4)]
    assert restore._rows_add_up(new, old)
    grown = [old["a"], _layout("b", 120, 128, 16, 4)]
    assert not restore._rows_add_up(grown, old)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_against_a_revision_the_examples_untouched_are_no_change_and_an_edit_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 39: `diff --against HEAD examples/` exited 2 on the SparseCore example.
    if shutil.which("git") is None:
        pytest.fail("git is required")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(Path(__file__).parent.parent / "examples", tmp_path / "examples")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "-c", "user.email=ci@example.com", "-c", "user.name=CI", "add", ".")
    _git(tmp_path, "-c", "user.email=ci@example.com", "-c", "user.name=CI", "commit", "-qm", "x")
    untouched = invoke("diff", "--against", "HEAD", "examples/")
    assert (untouched.exit_code, untouched.stderr) == (0, ""), untouched.output
    assert untouched.stdout.startswith("No changes (")
    spec = tmp_path / "examples" / "sparsecore" / "dlrm.spec.yaml"
    spec.write_text(
        spec.read_text().replace("cat_24, vocabulary_size: 108,", "cat_24, vocabulary_size: 1080,")
    )
    edited = invoke("diff", "--format", "concise", "--against", "HEAD", "examples/")
    assert edited.exit_code == 1, edited.output
    assert edited.stdout.startswith(
        "examples/sparsecore/dlrm.spec.yaml:38:20: TE951 [error] restore-error: restoring stack "
    )
