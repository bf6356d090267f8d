"""`tpuemb diff` of jax-tpu-embedding's stacked layouts (EmbeddingSpecProto files), without JAX:
each kind of change to a stacked checkpoint, where it is placed, its help, and the pipeline's
exit codes, formats and acknowledgements. (What the library and Orbax do is
tests/test_jax_diff_oracle.py's, under `make test-jax`.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from click.testing import CliRunner, Result
from google.protobuf import json_format, text_format

from tpuemb_cli.cli import main
from tpuemb_cli.frontends.jax.compat import specs as jax_specs
from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto, OptimizerSpecProto

ROOT = Path(__file__).resolve().parent.parent
BEFORE = ROOT / "examples" / "jax" / "recommender.stacked.pbtxt"
AFTER = ROOT / "examples" / "jax" / "changes" / "recommender.next.stacked.pbtxt"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["diff", "--isolated", *args], catch_exceptions=False)


def before() -> EmbeddingSpecProto:
    return text_format.Parse(BEFORE.read_text(), EmbeddingSpecProto())


def _changes(tmp_path: Path, edit: Callable[[EmbeddingSpecProto], Any]) -> list[dict[str, Any]]:
    """The changes diff reports from the example's first layout to that layout edited."""
    new = before()
    edit(new)
    path = tmp_path / "new.pbtxt"
    path.write_text(text_format.MessageToString(new))
    result = invoke("--format", "json", str(BEFORE), str(path))
    assert result.stderr == ""
    changes: list[dict[str, Any]] = json.loads(result.stdout)["changes"]
    return changes


def _summary(changes: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    return sorted((c["kind"], c["table"], c["field"]) for c in changes)


def test_the_example_pair_says_what_the_next_job_does_to_the_checkpoint() -> None:
    result = invoke("--format", "concise", str(BEFORE), str(AFTER))
    assert result.exit_code == 1 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert [line.split(" ")[1:3] for line in lines[:-1]] == [
        ["TE952", "[error]"],
        ["TE955", "[info]"],
        ["TE951", "[error]"],
        ["TE951", "[error]"],
    ]
    assert lines[0].startswith(
        f"{AFTER}:10:3: TE952 [error] silent-reinit: the checkpoint's stack `user_item` restores "
        "(same shape (1572864, 32)), but its values are laid out for another layout (SparseCores "
        "in all 8 -> 16"
    )
    assert "`country` has shape (256, 8), the new one (256, 16)" in lines[2]
    assert "the new stack `region` (1024, 16) (tables `region` (new))" in lines[3]
    assert lines[-1] == (
        "Found 4 changes: 2 restore-error, 1 silent-reinit, 1 topology-change "
        "(1 file pair compared)."
    )


def test_each_change_carries_the_librarys_way_across() -> None:
    result = invoke("--format", "json", str(BEFORE), str(AFTER))
    changes = json.loads(result.stdout)["changes"]
    helps = {c["rule"]: c["help"] for c in changes}
    for rule in ("TE951", "TE952"):
        assert "unstack_and_unshard_stacked_tables(stacked, old_proto)" in helps[rule]
        assert "stack_and_shard_feature_tables(tables, new_proto)" in helps[rule]
        assert "/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py" in helps[rule]
        assert "convert_cross_topology_checkpoint" in helps[rule]
        assert "acknowledge it" in helps[rule]
    country = next(c for c in changes if "`country` has shape" in c["message"])
    assert "`country` grows: stack_and_shard_feature_tables pads it with zeros" in country["help"]


def test_the_same_layout_has_no_change() -> None:
    result = invoke(str(BEFORE), str(BEFORE))
    assert (result.exit_code, result.stdout) == (0, "No changes (1 file pair compared).\n")


def test_json_and_binary_layouts_compare_as_text_does(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.binpb"
    old.write_text(json_format.MessageToJson(before()))
    new.write_bytes(text_format.Parse(AFTER.read_text(), EmbeddingSpecProto()).SerializeToString())
    by_text = json.loads(invoke("--format", "json", str(BEFORE), str(AFTER)).stdout)["changes"]
    result = invoke("--format", "json", str(old), str(new))
    assert result.exit_code == 1
    changes = json.loads(result.stdout)["changes"]
    assert sorted((c["kind"], c["field"], c["message"]) for c in changes) == sorted(
        (c["kind"], c["field"], c["message"]) for c in by_text
    )
    assert all(c["line"] is None for c in changes)  # binary has no lines


def test_a_renamed_stack_is_one_restore_error_with_a_rename_as_its_fix(tmp_path: Path) -> None:
    def rename(layout: EmbeddingSpecProto) -> None:
        layout.stacked_table_specs[0].stack_name = "users_and_items"

    changes = _changes(tmp_path, rename)
    assert _summary(changes) == [
        ("restore-error", "users_and_items", "stacked_table_specs[0].stack_name")
    ]
    assert changes[0]["old"] == "user_item" and changes[0]["new"] == "users_and_items"


def test_a_table_gone_is_orphaned_and_its_stack_lost(tmp_path: Path) -> None:
    def drop_country(layout: EmbeddingSpecProto) -> None:
        del layout.stacked_table_specs[1]

    changes = _changes(tmp_path, drop_country)
    assert _summary(changes) == [
        ("orphaned-state", "country", "stacked_table_specs[1].table_specs[0].table_name"),
        ("restore-error", "country", "stacked_table_specs[1].stack_name"),
    ]
    # Placed in the old file: the new one no longer has them.
    assert {c["file"] for c in changes} == {str(BEFORE)}


def test_a_table_moving_between_stacks_names_where_it_went(tmp_path: Path) -> None:
    def move(layout: EmbeddingSpecProto) -> None:
        user_item, country = layout.stacked_table_specs
        item = user_item.table_specs[1]
        user_item.stack_name, user_item.stack_vocab_size = "user", 1_048_576
        country.table_specs.add().CopyFrom(item)
        del user_item.table_specs[1]
        country.stack_name = "country_item"

    messages = [c["message"] for c in _changes(tmp_path, move)]
    assert any("`item` (now in stack `country_item`)" in m for m in messages)
    assert any("`item` (from stack `user_item`)" in m for m in messages)


def _optimizer(
    layout: EmbeddingSpecProto, kind: OptimizerSpecProto.OptimizerType, rate: float = 0.05
) -> None:
    for table in layout.stacked_table_specs[0].table_specs:
        table.optimizer.CopyFrom(OptimizerSpecProto(type=kind, learning_rate=rate))


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (OptimizerSpecProto.ADAM, "restore-error"),  # 1 slot -> 2: Orbax refuses the tree
        (OptimizerSpecProto.SGD, "restore-error"),  # 1 slot -> none
        (OptimizerSpecProto.ADAGRAD, None),
    ],
)
def test_slot_arrays_follow_the_recorded_optimizer(
    tmp_path: Path, kind: OptimizerSpecProto.OptimizerType, expected: str | None
) -> None:
    old = before()
    _optimizer(old, OptimizerSpecProto.ADAGRAD)
    (tmp_path / "old.pbtxt").write_text(text_format.MessageToString(old))
    new = before()
    _optimizer(new, kind)
    (tmp_path / "new.pbtxt").write_text(text_format.MessageToString(new))
    result = invoke("--format", "json", str(tmp_path / "old.pbtxt"), str(tmp_path / "new.pbtxt"))
    kinds = [c["kind"] for c in json.loads(result.stdout)["changes"]]
    if expected is None:
        assert kinds == []
    else:
        assert kinds == [expected, "training-change"]


def test_slots_of_another_optimizer_refuse_the_restore_by_name(tmp_path: Path) -> None:
    """Orbax restores slots by name (the library's slot namedtuples are saved as dict keys,
    tests/data/orbax): Adam -> FTRL, as many arrays, refuses the tree."""
    old = before()
    _optimizer(old, OptimizerSpecProto.ADAM)
    (tmp_path / "old.pbtxt").write_text(text_format.MessageToString(old))
    new = before()
    _optimizer(new, OptimizerSpecProto.FTRL, rate=0.1)
    (tmp_path / "new.pbtxt").write_text(text_format.MessageToString(new))
    result = invoke("--format", "json", str(tmp_path / "old.pbtxt"), str(tmp_path / "new.pbtxt"))
    changes = json.loads(result.stdout)["changes"]
    assert [c["kind"] for c in changes] == ["restore-error", "training-change"]
    assert "(`momentum`, `velocity`)" in changes[0]["message"]
    assert "(`accumulator`, `linear`)" in changes[0]["message"]
    assert "restores slots by name" in changes[0]["message"]


def test_a_learning_rate_is_a_training_change(tmp_path: Path) -> None:
    old = before()
    _optimizer(old, OptimizerSpecProto.ADAGRAD, rate=0.05)
    (tmp_path / "old.pbtxt").write_text(text_format.MessageToString(old))
    new = before()
    _optimizer(new, OptimizerSpecProto.ADAGRAD, rate=0.25)
    (tmp_path / "new.pbtxt").write_text(text_format.MessageToString(new))
    result = invoke("--format", "json", str(tmp_path / "old.pbtxt"), str(tmp_path / "new.pbtxt"))
    changes = json.loads(result.stdout)["changes"]
    assert _summary(changes) == [
        ("training-change", "item", "stacked_table_specs[0].table_specs[1].optimizer"),
        ("training-change", "user", "stacked_table_specs[0].table_specs[0].optimizer"),
    ]
    assert result.exit_code == 0  # not in the default --fail-on


def test_sizes_within_the_padding_and_limits_restore(tmp_path: Path) -> None:
    def edit(layout: EmbeddingSpecProto) -> None:
        country = layout.stacked_table_specs[1]
        country.table_specs[0].vocab_size = 256
        country.max_ids_per_partition = 512

    changes = _changes(tmp_path, edit)
    assert _summary(changes) == [
        ("training-change", "country", "stacked_table_specs[1].max_ids_per_partition"),
        ("training-change", "country", "stacked_table_specs[1].table_specs[0].vocab_size"),
    ]
    assert "ids 250..255 start from the padding's initial values" in changes[1]["message"]


def test_a_width_within_the_padding_restores(tmp_path: Path) -> None:
    def narrow(layout: EmbeddingSpecProto) -> None:
        layout.stacked_table_specs[0].table_specs[0].embedding_dim = 30

    changes = _changes(tmp_path, narrow)
    assert _summary(changes) == [
        ("training-change", "user", "stacked_table_specs[0].table_specs[0].embedding_dim")
    ]
    assert changes[0]["message"] == (
        "table `user`: dimension 32 -> 30 within its padding (32): the checkpoint restores; "
        "columns 30.. are no longer read"
    )


def test_a_layout_for_another_table_order_is_a_silent_reinit(tmp_path: Path) -> None:
    def swap(layout: EmbeddingSpecProto) -> None:
        tables = layout.stacked_table_specs[0].table_specs
        tables[1].shard_rotation = 0

    changes = _changes(tmp_path, swap)
    assert _summary(changes) == [("silent-reinit", "user_item", "stacked_table_specs[0]")]
    assert "`item`: shard_rotation 2 -> 0" in changes[0]["message"]


def test_an_acknowledged_change_passes_the_gate(tmp_path: Path) -> None:
    lines = AFTER.read_text().splitlines()
    found = json.loads(invoke("--format", "json", str(BEFORE), str(AFTER)).stdout)["changes"]
    for change in found:
        if change["kind"] != "topology-change":
            lines[change["line"] - 1] += f"  # tpuemb: ignore[{change['kind']}] retrained"
    acknowledged = tmp_path / "next.pbtxt"
    acknowledged.write_text("\n".join(lines) + "\n")
    result = invoke(str(BEFORE), str(acknowledged))
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (
        0,
        "Found 1 change: 1 topology-change (1 file pair compared).",
    )


def test_a_stacked_layout_against_a_tensorflow_config_cannot_be_compared() -> None:
    result = invoke(str(BEFORE), str(ROOT / "examples" / "recommender.pbtxt"))
    assert result.exit_code == 2
    assert result.stderr == (
        f"tpuemb: error: {BEFORE} and {ROOT / 'examples' / 'recommender.pbtxt'}: cannot "
        f"compare: {BEFORE} is a stacked layout of jax-tpu-embedding (EmbeddingSpecProto), "
        f"{ROOT / 'examples' / 'recommender.pbtxt'} is a TPUEmbeddingConfiguration "
        "(TensorFlow's TPUEmbedding); their checkpoints have nothing in common to compare\n"
    )


def test_a_spec_with_a_jax_section_goes_through_the_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever layouts the hook returns, diff compares them and places their changes at the
    spec's tables (a new stack at the jax section)."""
    spec = tmp_path / "model.spec.yaml"
    spec.write_text(
        "jax: {global_device_count: 4, num_sc_per_device: 2}\n"
        "tables:\n"
        "  - {name: user, vocabulary_size: 1048576, dim: 32, combiner: sum}\n"
        "  - {name: item, vocabulary_size: 524288, dim: 32, combiner: sum}\n"
        "  - {name: country, vocabulary_size: 250, dim: 8, combiner: sum}\n"
        "features:\n"
        "  - {name: user_id, table: user, input_shape: [64], output_shape: [64, 32]}\n"
        "  - {name: item_id, table: item, input_shape: [64], output_shape: [64, 32]}\n"
        "  - {name: country_id, table: country, input_shape: [64], output_shape: [64, 8]}\n"
    )
    layouts = [before(), text_format.Parse(AFTER.read_text(), EmbeddingSpecProto())]
    monkeypatch.setattr(jax_specs, "stacked_layout_of_spec", lambda _spec: layouts.pop(0))
    result = invoke("--format", "json", str(spec), str(spec))
    changes = json.loads(result.stdout)["changes"]
    assert result.exit_code == 1
    # A stack's change at its first table in the spec; the topology at the jax section.
    fields = {(c["kind"], c["table"]): c["field"] for c in changes}
    assert fields[("silent-reinit", "user_item")] == "tables[0]"
    assert fields[("restore-error", "country")] == "tables[2]"
    assert fields[("topology-change", None)] == "tables[0]"
    assert fields[("restore-error", "region")] == "jax"


def test_a_stacked_layout_against_a_tensorflow_checkpoint_is_refused_plainly() -> None:
    checkpoint = ROOT / "tests" / "data" / "real-repo" / "tree" / "ckpt" / "ckpt-1.index"
    result = CliRunner().invoke(
        main, ["diff", "--isolated", "--against-checkpoint", str(checkpoint), str(BEFORE)]
    )
    assert result.exit_code == 2
    assert "TE010" not in result.stdout
    assert "whose checkpoints Orbax writes, not TensorFlow" in result.stderr


def _layouts() -> Any:
    """Small stacked layouts, hostile numbers included: stacks of tables with shared, empty or
    repeated names, sizes from -1 up, recorded optimizers or none."""
    from hypothesis import strategies as st

    name = st.sampled_from(["", "a", "b", "a_b", "c"])
    number = st.integers(min_value=-1, max_value=40)
    optimizer = st.one_of(st.none(), st.sampled_from(list(OptimizerSpecProto.OptimizerType.keys())))

    @st.composite
    def layout(draw: Any) -> EmbeddingSpecProto:
        result = EmbeddingSpecProto()
        for _ in range(draw(st.integers(0, 3))):
            stack = result.stacked_table_specs.add(
                stack_name=draw(name),
                stack_vocab_size=draw(number),
                stack_embedding_dim=draw(number),
                num_sparsecores=draw(number),
                max_ids_per_partition=draw(number),
            )
            for _ in range(draw(st.integers(0, 3))):
                table = stack.table_specs.add(
                    table_name=draw(name),
                    vocab_size=draw(number),
                    embedding_dim=draw(number),
                    padded_vocab_size=draw(number),
                    padded_embedding_dim=draw(number),
                    row_offset_in_shard=draw(number),
                    shard_rotation=draw(number),
                )
                kind = draw(optimizer)
                if kind is not None:
                    table.optimizer.type = cast(
                        OptimizerSpecProto.OptimizerType,
                        OptimizerSpecProto.OptimizerType.Value(kind),
                    )
                    table.optimizer.learning_rate = draw(st.sampled_from([0.0, 0.1]))
        return result

    return layout()


@pytest.mark.slow
def test_any_two_layouts_compare_without_a_crash() -> None:
    from hypothesis import HealthCheck, given, settings

    from tpuemb_cli.workspace import Version, Workspace, diff_versions

    workspace = Workspace(isolated=True, command="diff")

    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_layouts(), _layouts())
    def compare(old: EmbeddingSpecProto, new: EmbeddingSpecProto) -> None:
        sides = [
            Version(
                text_format.MessageToString(m).encode(), name, message_type="EmbeddingSpecProto"
            )
            for m, name in ((old, "old.pbtxt"), (new, "new.pbtxt"))
        ]
        diffed = diff_versions(workspace, sides[0], sides[1], "new.pbtxt")
        assert all(f.rule != "TE010" for f in diffed.findings), diffed.findings
        itself = diff_versions(workspace, sides[1], sides[1], "new.pbtxt")
        assert itself.findings == [] or itself.error is not None, itself

    compare()


def test_a_suppress_entry_acknowledges_a_change_of_a_binary_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.binpb").write_bytes(before().SerializeToString())
    after = text_format.Parse(AFTER.read_text(), EmbeddingSpecProto())
    (tmp_path / "new.binpb").write_bytes(after.SerializeToString())
    (tmp_path / ".tpuemb.toml").write_text(
        '[[suppress]]\nfile = "new.binpb"\nfield = "stacked_table_specs[*"\n'
        'rules = ["restore-error", "silent-reinit"]\nreason = "moved to 8 devices, retrained"\n'
    )
    arguments = ["diff", "--type", "EmbeddingSpecProto", "--format", "json", "old.binpb"]
    result = CliRunner().invoke(main, [*arguments, "new.binpb"])
    changes = json.loads(result.stdout)["changes"]
    assert (result.exit_code, [c["kind"] for c in changes]) == (0, ["topology-change"])
    unacknowledged = CliRunner().invoke(main, [*arguments, "--isolated", "new.binpb"])
    assert unacknowledged.exit_code == 1


SPEC = """\
jax: {global_device_count: DEVICES, num_sc_per_device: 2}
tables:
  - {name: user, vocabulary_size: 1048576, dim: 32, combiner: sum, jax: {stack: user_item}}
  - {name: item, vocabulary_size: 524288, dim: 32, combiner: sum, jax: {stack: user_item}}
  - {name: country, vocabulary_size: 250, dim: COUNTRY, combiner: sum}
features:
  - {name: user_id, table: user, input_shape: [64], output_shape: [64, 32]}
  - {name: item_id, table: item, input_shape: [64], output_shape: [64, 32]}
  - {name: country_id, table: country, input_shape: [64], output_shape: [64, COUNTRY]}
"""


def test_two_specs_with_a_jax_section_are_diffed_through_their_compiled_layouts(
    tmp_path: Path,
) -> None:
    """No hook set by hand: diff stacks each spec as compile --target jax does."""
    old, new = tmp_path / "old.spec.yaml", tmp_path / "new.spec.yaml"
    old.write_text(SPEC.replace("DEVICES", "4").replace("COUNTRY", "8"))
    new.write_text(SPEC.replace("DEVICES", "8").replace("COUNTRY", "12"))
    same = invoke("--format", "json", str(old), str(old))
    assert (same.exit_code, json.loads(same.stdout)["changes"]) == (0, [])
    result = invoke("--format", "json", str(old), str(new))
    changes = json.loads(result.stdout)["changes"]
    assert result.exit_code == 1, result.output
    found = sorted((c["kind"], c["table"], c["field"]) for c in changes)
    assert found == [
        ("restore-error", "country", "tables[2]"),
        ("silent-reinit", "user_item", "tables[0]"),
        ("topology-change", None, "tables[0]"),
    ]


def test_a_spec_whose_stacking_the_library_refuses_is_not_compared(tmp_path: Path) -> None:
    spec = tmp_path / "refused.spec.yaml"
    spec.write_text(
        SPEC.replace("DEVICES", "4")
        .replace("COUNTRY", "8")
        .replace("jax: {global_device_count", "jax: {auto_stack: true, global_device_count")
    )
    refused = invoke(str(spec), str(spec))
    assert refused.exit_code == 2 and "cannot compare: it has errors" in refused.output
    # With the rule that says so turned off, diff still cannot stack it, and says why.
    result = invoke("--ignore", "TE696", str(spec), str(spec))
    assert result.exit_code == 2, result.output
    assert (
        f'{spec}: jax-tpu-embedding would refuse the spec\'s stacking: table "user" is put in '
        'stack "user_item" and the tables are auto-stacked too'
    ) in result.output


def test_a_spec_names_its_checkpoints_slots_by_its_optimizer(tmp_path: Path) -> None:
    """A spec's stacked layout records each table's optimizer (0.2.0's proto does): SGD -> Adam
    in a spec pair gains two slot arrays per stack, which Orbax refuses (the 0.1.0 layout alone,
    which records none, said nothing)."""
    spec = (ROOT / "tests" / "data" / "jax" / "compile" / "explicit.spec.textproto").read_text()
    (tmp_path / "old.textproto").write_text(spec)
    (tmp_path / "new.textproto").write_text(spec.replace("SGDOptimizerSpec", "AdamOptimizerSpec"))
    result = invoke(
        "--format", "json", str(tmp_path / "old.textproto"), str(tmp_path / "new.textproto")
    )
    assert result.exit_code == 1
    changes = json.loads(result.stdout)["changes"]
    errors = [c for c in changes if c["kind"] == "restore-error"]
    assert errors and all("`momentum`, `velocity`" in c["message"] for c in errors)
