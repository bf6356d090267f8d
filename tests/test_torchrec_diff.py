"""`tpuemb diff` of TorchRec specs, end to end: two specs (what a checkpoint the old one's fused
collection saved does under the new one), and a spec against a PyTorch distributed checkpoint's
`.metadata` (tests/data/dcp/torchrec: made by torch 2.13 with torchrec's save planner,
make_torchrec_fixtures.py), with the errors a user can make (exit 2, never a traceback)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli import load as loader
from tpuemb_cli.cli import main
from tpuemb_cli.frontends.torchrec.load.dcp_metadata import read_dcp_metadata
from tpuemb_cli.frontends.torchrec.spec.stacking import stack

from . import checkpoint_files as files

DATA = Path(__file__).parent / "data" / "dcp" / "torchrec"
SPEC = (DATA / "spec.pbtxt").read_text()
UNCOMPARED = "Nothing compared (1 file pair could not be compared).\n"
SAME = "No changes (1 file pair compared).\n"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    (tmp_path / "old.pbtxt").write_text(SPEC)
    return tmp_path


def spec(here: Path, *edits: tuple[str, str]) -> str:
    """The fixtures' spec with each (old, new) text replaced, written as new.pbtxt."""
    text = SPEC
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    (here / "new.pbtxt").write_text(text)
    return "new.pbtxt"


def changes(*args: str) -> tuple[int, list[tuple[str, str, str]]]:
    """The exit code, and each change's (kind, field, message)."""
    result = invoke("diff", "--format", "json", *args)
    assert result.stderr == "" or result.exit_code != 2, result.stderr
    found = json.loads(result.stdout)["changes"]
    return result.exit_code, [(c["kind"], c["field"], c["message"]) for c in found]


def kinds(found: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    return [(kind, field) for kind, field, _ in found]


# -- two specs ---------------------------------------------------------------------------------


def test_a_spec_against_itself_changes_nothing(here: Path) -> None:
    result = invoke("diff", "--format", "concise", "old.pbtxt", spec(here))
    assert (result.exit_code, result.stdout, result.stderr) == (0, SAME, "")


def test_a_renamed_stack_fails_the_restore(here: Path) -> None:
    new = spec(here, ('stack_table_name: "a_b" }', 'stack_table_name: "ab" }'))
    code, found = changes("old.pbtxt", new)
    assert (code, kinds(found)) == (1, [("restore-error", "tables[0]")])
    assert "stack `a_b` is renamed `ab`" in found[0][2]
    assert "`embedding_bags.a_b.weight`, not `embedding_bags.ab.weight`" in found[0][2]


def test_a_table_moved_to_another_stack_reshapes_both(here: Path) -> None:
    new = spec(
        here,
        (
            'feature_names: "f_b" stack_table_name: "a_b"',
            'feature_names: "f_b" stack_table_name: "c"',
        ),
    )
    code, found = changes("old.pbtxt", new)
    assert code == 1
    assert kinds(found) == [("restore-error", "tables[0]"), ("restore-error", "tables[1]")]
    assert "has shape (144, 8), the new one (112, 8) (left by `b`)" in found[0][2]
    assert "(64, 16), the new one (96, 16) (joined by `b`" in found[1][2]


def test_a_stack_of_another_shape_fails_the_restore(here: Path) -> None:
    new = spec(here, ("num_embeddings: 100", "num_embeddings: 200"))
    code, found = changes("old.pbtxt", new)
    assert (code, kinds(found)) == (1, [("restore-error", "tables[0]")])
    assert "`a`: num_embeddings 100 -> 200" in found[0][2]
    assert "Size mismatch between saved" in found[0][2]


def test_tables_in_another_order_restore_into_other_rows(here: Path) -> None:
    lines = SPEC.splitlines(keepends=True)
    a, b = lines[2], lines[3]
    new = spec(here, (a + b, b + a))
    code, found = changes("old.pbtxt", new)
    assert (code, kinds(found)) == (1, [("silent-reinit", "tables[0]")])
    assert "`a`: row_offset_in_shard 0 -> 16" in found[0][2]


def test_a_table_grown_within_its_padding_trains_on(here: Path) -> None:
    new = spec(here, ("num_embeddings: 100", "num_embeddings: 110"))
    code, found = changes("old.pbtxt", new)
    assert (code, kinds(found)) == (0, [("training-change", "tables[0]")])
    assert "within their padding (`a`: num_embeddings 100 -> 110)" in found[0][2]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("SGD", "Adagrad", [("restore-error", "collection.optimizer.type")]),
        ("Adagrad", "SGD", [("orphaned-state", "collection.optimizer.type")]),
        (
            "Adagrad",
            "Adam",
            [
                ("restore-error", "collection.optimizer.type"),
                ("orphaned-state", "collection.optimizer.type"),
            ],
        ),
    ],
)
def test_the_optimizer_state(here: Path, old: str, new: str, expected: list[Any]) -> None:
    (here / "old.pbtxt").write_text(SPEC.replace('"Adagrad"', f'"{old}"'))
    code, found = changes("old.pbtxt", spec(here, ('"Adagrad"', f'"{new}"')))
    assert (code, kinds(found)) == (1 if "restore-error" in str(expected) else 0, expected)


def test_sgd_to_adagrad_names_the_missing_keys(here: Path) -> None:
    (here / "old.pbtxt").write_text(SPEC.replace('"Adagrad"', '"SGD"'))
    result = invoke("diff", "--format", "json", "old.pbtxt", spec(here))
    (change,) = json.loads(result.stdout)["changes"]
    assert change["message"].startswith(
        "restoring fails: SGD -> Adagrad adds the optimizer state `accumulators` of each stack "
        "(`accumulators.a_b`, `accumulators.c`)"
    )
    assert "allow_partial_load=True" in change["help"]


def test_a_new_learning_rate_is_overwritten_by_the_checkpoints(here: Path) -> None:
    code, found = changes("old.pbtxt", spec(here, ("value: 0.1", "value: 0.05")))
    assert (code, kinds(found)) == (0, [("training-change", "collection.optimizer.kwargs.lr")])
    assert found[0][2].startswith("the optimizer's `lr` changes: 0.1 -> 0.05; the checkpoint's")
    assert "call `set_learning_rate(...)` after loading" in found[0][2]


def test_another_topology_is_resharded_and_permuted(here: Path) -> None:
    code, found = changes("old.pbtxt", spec(here, ("num_sc_per_device: 2", "num_sc_per_device: 4")))
    assert code == 1
    assert kinds(found) == [
        ("silent-reinit", "collection.num_sc_per_device"),
        ("topology-change", "collection.num_sc_per_device"),
    ]
    assert "stacked_configs" in found[1][2]
    permuted = found[0][2]
    assert "`table_stacking.stack_and_shard_tables`" in permuted
    assert "`checkpoint/utils.reverse_mod_shard`" in permuted
    assert "(2 -> 4 SparseCores in all)" in permuted


def test_a_removed_stack_is_orphaned_state(here: Path) -> None:
    lines = SPEC.splitlines(keepends=True)
    code, found = changes("old.pbtxt", spec(here, (lines[4], "")))
    assert (code, kinds(found)) == (0, [("orphaned-state", "tables[2]")])
    assert found[0][2].startswith("the checkpoint's stack `c` (64, 16) (tables `c` (removed))")


def test_a_new_stack_has_nothing_to_restore(here: Path) -> None:
    lines = SPEC.splitlines(keepends=True)
    added = lines[4].replace('"c"', '"d"').replace('"f_c"', '"f_d"')
    code, found = changes("old.pbtxt", spec(here, (lines[4], lines[4] + added)))
    assert (code, kinds(found)) == (1, [("restore-error", "tables[3]")])
    assert "has no `embedding_bags.d.weight` in the checkpoint" in found[0][2]


def test_another_collection_type_renames_every_key(here: Path) -> None:
    new = spec(
        here,
        ("SparseCoreFusedEmbeddingBagCollection", "SparseCoreFusedEmbeddingCollection"),
        ('kind: "bag"', 'kind: "sequence" max_seq_len: 4'),
    )
    code, found = changes("old.pbtxt", new)
    assert (code, kinds(found)) == (1, [("restore-error", "collection.type")])


# -- against a checkpoint ----------------------------------------------------------------------


def test_the_fixtures_stacked_configs_are_the_specs_stacks() -> None:
    # make_torchrec_fixtures.py saved these; they are what torchrec's stacking makes of the spec.
    saved = json.loads((DATA / "stacked_configs.json").read_text())
    document = loader.load_bytes(SPEC.encode(), "spec.pbtxt", "text", "TorchRecSpec")
    message: Any = document.message
    for topology, configs in saved.items():
        devices, per_device = (int(n) for n in topology.split("x"))
        message.collection.global_device_count = devices
        message.collection.num_sc_per_device = per_device
        assert {s.name: s.to_dict(message) for s in stack(message).stacks} == configs
    held = read_dcp_metadata(DATA / "same").sparsecore
    assert held is not None and held["stacked_configs"] == saved["1x2"]


def against(checkpoint: str, file: str, *more: str) -> tuple[int, list[tuple[str, str, str]]]:
    return changes("--against-checkpoint", str(DATA / checkpoint), file, *more)


def test_the_checkpoint_the_spec_saved_restores(here: Path) -> None:
    for where in (DATA / "same", DATA / "same" / ".metadata"):
        result = invoke(
            "diff", "--format", "concise", "--against-checkpoint", str(where), "old.pbtxt"
        )
        assert (result.exit_code, result.stdout) == (0, SAME)
    # Its `.metadata` named alone: said on stderr, still compared.
    assert "read alone" in result.stderr


def test_a_checkpoint_of_the_default_planner_cannot_say_its_layout(here: Path) -> None:
    code, found = against("default", "old.pbtxt")
    assert (code, kinds(found)) == (
        0,
        [("unverified-layout", "tables[0]"), ("unverified-layout", "tables[2]")],
    )
    assert "no `planner_data['sparsecore']`: saved by the default planner" in found[0][2]


def test_missing_optimizer_state_fails_the_restore(here: Path) -> None:
    code, found = against("sgd", "old.pbtxt")
    assert (code, kinds(found)) == (1, [("restore-error", "collection.optimizer.type")])
    assert found[0][2].startswith(
        "restoring fails: the checkpoint lacks `model.sparse.accumulators.a_b`, "
        "`model.sparse.accumulators.c` of the collection's state dict"
    )
    assert against("sgd", spec(here, ('"Adagrad"', '"SGD"'))) == (0, [])


def test_optimizer_state_nothing_reads_is_orphaned(here: Path) -> None:
    code, found = against("same", spec(here, ('"Adagrad"', '"SGD"')))
    assert (code, kinds(found)) == (0, [("orphaned-state", "collection.optimizer.type")])


def test_a_stack_of_another_shape_fails_the_restore_from_the_checkpoint(here: Path) -> None:
    code, found = against("same", spec(here, ("num_embeddings: 100", "num_embeddings: 200")))
    assert code == 1
    assert {kind for kind, _ in kinds(found)} == {"restore-error"}
    assert "`model.sparse.embedding_bags.a_b.weight` has shape (144, 8)" in found[0][2]
    assert "`a`: padded_vocab_size 112 -> 208" in found[0][2]


def test_the_checkpoints_stacked_configs_show_a_relayout(here: Path) -> None:
    lines = SPEC.splitlines(keepends=True)
    code, found = against("same", spec(here, (lines[2] + lines[3], lines[3] + lines[2])))
    assert (code, kinds(found)) == (1, [("silent-reinit", "tables[0]")])
    assert "the checkpoint's stacked config lays its rows out otherwise" in found[0][2]


def test_stacks_gained_and_lost_against_the_checkpoint(here: Path) -> None:
    code, found = against("same", spec(here, ('"c"', '"d"'), ('"f_c"', '"f_d"')))
    assert code == 1
    assert kinds(found) == [("restore-error", "tables[2]"), ("orphaned-state", "collection")]
    assert "has no `model.sparse.embedding_bags.d.weight`" in found[0][2]
    assert found[1][2].startswith("the checkpoint's stack `c` under `model.sparse.` is no stack")


def test_a_checkpoint_of_another_topology_with_stacked_configs(here: Path) -> None:
    code, found = against("topology", "old.pbtxt")
    assert code == 1
    assert kinds(found) == [
        ("silent-reinit", "collection.global_device_count"),
        ("topology-change", "collection.global_device_count"),
    ]
    assert "saved on 2 x 2 (world size x SparseCores a device)" in found[1][2]
    assert "holds the stacked configs it was saved with" in found[1][2]
    message = found[0][2]
    assert "(4 -> 2 SparseCores in all)" in message
    assert "`table_stacking.stack_and_shard_tables`" in message
    assert "`checkpoint/utils.reverse_mod_shard`" in message
    assert "`a_b`: `a`: padded_vocab_size 128 -> 112" in message
    assert "`unshard_for_cpu=True`" in message
    # On its own topology, the same checkpoint restores.
    on_two = spec(here, ("global_device_count: 1", "global_device_count: 2"))
    assert against("topology", on_two) == (0, [])


def test_a_checkpoint_of_another_topology_without_stacked_configs(here: Path) -> None:
    code, found = against("topology_bare", "old.pbtxt")
    assert code == 1
    assert kinds(found) == [
        ("silent-reinit", "collection.global_device_count"),
        ("topology-change", "collection.global_device_count"),
    ]
    assert "cannot reshard it correctly" in found[1][2]
    assert found[0][2].startswith("cannot restore correctly: the checkpoint records no stacked")


def test_a_checkpoint_of_two_collections_needs_a_prefix(here: Path) -> None:
    result = invoke("diff", "--against-checkpoint", str(DATA / "two_collections"), "old.pbtxt")
    assert (result.exit_code, result.stdout) == (2, UNCOMPARED)
    assert result.stderr.endswith(
        "cannot compare: it holds the stacks of 2 collections (under `item.`, `user.`): name "
        "the spec's with --checkpoint-prefix\n"
    )
    code, found = against("two_collections", "old.pbtxt", "--checkpoint-prefix", "user")
    assert code == 1
    assert ("restore-error", "tables[2]") in kinds(found)  # `c` is the other collection's
    result = invoke(
        "diff",
        "--against-checkpoint",
        str(DATA / "two_collections"),
        "--checkpoint-prefix",
        "nope",
        "old.pbtxt",
    )
    assert result.exit_code == 2 and "holds no key under `nope.`" in result.stderr


def test_every_output_format(here: Path) -> None:
    for output in ("full", "concise", "json", "json-lines", "sarif", "github"):
        result = invoke(
            "diff", "--format", output, "--against-checkpoint", str(DATA / "topology"), "old.pbtxt"
        )
        assert result.exit_code == 1, output
        assert "silent-reinit" in result.stdout or "TE952" in result.stdout, output


# -- what is no checkpoint to compare ----------------------------------------------------------


def _fails(args: list[str], said: str) -> None:
    result = invoke("diff", *args)
    assert result.exit_code == 2
    assert said in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_hostile_metadata_is_refused_unread(here: Path) -> None:
    folder = here / "ckpt"
    folder.mkdir()
    # A pickle that would run a command if it were unpickled.
    (folder / ".metadata").write_bytes(
        b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00cos\nsystem\n(S'true'\ntR."
    )
    _fails(["--against-checkpoint", "ckpt", "old.pbtxt"], "ckpt/.metadata")
    (folder / ".metadata").write_bytes(pickle.dumps({"not": "metadata"}))
    _fails(
        ["--against-checkpoint", "ckpt", "old.pbtxt"],
        "not the .metadata of a torch.distributed.checkpoint",
    )


def test_a_save_that_did_not_finish(here: Path) -> None:
    (here / "ckpt").mkdir()
    (here / "ckpt" / "__0_0.distcp").write_bytes(b"")
    _fails(["--against-checkpoint", "ckpt", "old.pbtxt"], "the save did not finish")


def test_a_folder_that_is_no_checkpoint(here: Path) -> None:
    (here / "empty").mkdir()
    _fails(["--against-checkpoint", "empty", "old.pbtxt"], "empty: ")


def test_step_goes_with_orbax_only(here: Path) -> None:
    _fails(
        ["--against-checkpoint", str(DATA / "same"), "--step", "3", "old.pbtxt"],
        "a PyTorch distributed checkpoint is one folder",
    )


def test_a_torchrec_spec_against_a_tensorflow_checkpoint_cannot_be_compared(here: Path) -> None:
    variables = files.embedding({"video": (1000, 16)}, {"video": ["accumulators"]})
    files.save(here / "ckpt-1.index", files.bundle(variables))
    result = invoke("diff", "--against-checkpoint", "ckpt-1.index", "old.pbtxt")
    assert (result.exit_code, result.stdout) == (2, UNCOMPARED)
    assert result.stderr == (
        "tpuemb: error: old.pbtxt: cannot compare: a TorchRec spec is saved in a PyTorch "
        "distributed checkpoint (name its folder), not a TensorFlow one\n"
    )


def test_a_tensorflow_config_against_a_dcp_checkpoint_cannot_be_compared(here: Path) -> None:
    from .helpers import CLEAN

    (here / "model.pbtxt").write_text(CLEAN)
    result = invoke("diff", "--against-checkpoint", str(DATA / "same"), "model.pbtxt")
    assert (result.exit_code, result.stdout) == (2, UNCOMPARED)
    assert "is a PyTorch distributed checkpoint, which holds none of its variables" in result.stderr


# -- planner data tpuemb does not trust ----------------------------------------------------------


def _compared(sparsecore: object) -> list[tuple[str, str]]:
    """The `same` checkpoint's comparison with the spec, its planner data replaced."""
    from tpuemb_cli.frontends.torchrec.compat.dcp import compare_dcp
    from tpuemb_cli.frontends.torchrec.compat.state import collection_state
    from tpuemb_cli.frontends.torchrec.load.dcp import read_checkpoint

    checkpoint = read_checkpoint(DATA / "same")
    metadata = checkpoint.metadata._replace(planner_data={"sparsecore": sparsecore})
    document = loader.load_bytes(SPEC.encode(), "spec.pbtxt", "text", "TorchRecSpec")
    state = collection_state("spec.pbtxt", document.message)
    found = compare_dcp("spec.pbtxt", state, checkpoint._replace(metadata=metadata))
    return [(change.kind, change.message) for change in found]


def _configs() -> dict[str, Any]:
    saved: dict[str, Any] = json.loads((DATA / "stacked_configs.json").read_text())["1x2"]
    return saved


def test_stacked_configs_that_miss_a_stack_leave_it_unverified() -> None:
    configs = _configs()
    del configs["c"]
    found = _compared({"world_size": 1, "num_sc_per_device": 2, "stacked_configs": configs})
    assert [kind for kind, _ in found] == ["unverified-layout"]
    assert found[0][1].startswith("the checkpoint's stacked configs do not name it: stack `c`")


def test_stacked_configs_that_do_not_describe_the_tensors_are_not_used() -> None:
    configs = _configs()
    configs["c"]["stack_num_embeddings"] = 128
    found = _compared({"world_size": 1, "num_sc_per_device": 2, "stacked_configs": configs})
    assert [kind for kind, _ in found] == ["unverified-layout", "unverified-layout"]
    assert "give stack `c` the shape (128, 16), its tensor is (64, 16)" in found[0][1]


def test_unreadable_stacked_configs_are_said() -> None:
    configs = _configs()
    configs["c"]["tables"] = "c"
    found = _compared({"world_size": 1, "num_sc_per_device": 2, "stacked_configs": configs})
    assert {kind for kind, _ in found} == {"unverified-layout"}
    assert "unreadable (stack `c`: `tables` is no list)" in found[0][1]


def test_a_topology_that_is_no_count_cannot_be_compared() -> None:
    from tpuemb_cli.compat.layouts import CannotCompare

    with pytest.raises(CannotCompare, match="holds world_size '2' and num_sc_per_device 2"):
        _compared({"world_size": "2", "num_sc_per_device": 2})


def test_a_resharded_load_says_which_side_the_kernel_decides(here: Path) -> None:
    args = ["--against-checkpoint", str(DATA / "topology"), "old.pbtxt"]
    result = invoke("diff", "--format", "json", *args)
    (permuted,) = [c for c in json.loads(result.stdout)["changes"] if c["kind"] == "silent-reinit"]
    assert "the one the SparseCore kernel uses is right" in permuted["help"]
    assert "check a few known ids after loading" in permuted["help"]
