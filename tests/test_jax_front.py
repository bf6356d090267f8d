"""`tpuemb_cli.jax`: jax-tpu-embedding's FeatureSpecs read by attribute into a spec, and linted with
JAX's rules, with stand-in objects (no JAX here; tests/test_jax_front_oracle.py uses the library's
own objects)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from google.protobuf import text_format

from tests.jax_objects import (
    AdagradOptimizerSpec,
    FeatureSpec,
    IdTransformation,
    Setting,
    SGDOptimizerSpec,
    StackedTableSpec,
    TableSpec,
    codes,
)
from tpuemb_cli.cli import main
from tpuemb_cli.jax import PreparedSpecError, compile_jax, spec_from_jax


def test_the_spec_of_two_features_on_a_shared_table_and_one_alone() -> None:
    def schedule(step: int) -> float:
        return 0.1

    shared = TableSpec("user", optimizer=AdagradOptimizerSpec(learning_rate=schedule))
    alone = TableSpec("video", vocabulary_size=50, embedding_dim=8, combiner="mean")
    features = {
        "b": FeatureSpec("history", shared),
        "a": [FeatureSpec("user", shared), FeatureSpec("video", alone, (256,), (256, 8))],
    }
    spec = spec_from_jax(features, global_device_count=8, num_sc_per_device=4)
    assert text_format.MessageToString(spec) == (
        'schedules {\n  name: "schedule"\n  description: "' + repr(schedule)[:200] + '"\n}\n'
        'tables {\n  name: "user"\n  vocabulary_size: 1000\n  dim: 16\n  combiner: "sum"\n'
        '  jax {\n    optimizer {\n      type: "AdagradOptimizerSpec"\n'
        '      learning_rate {\n        schedule: "schedule"\n      }\n'
        '      settings {\n        key: "initial_accumulator_value"\n        value: 0.1\n      }\n'
        "    }\n    max_ids_per_partition: 256\n    max_unique_ids_per_partition: 256\n  }\n}\n"
        'tables {\n  name: "video"\n  vocabulary_size: 50\n  dim: 8\n  combiner: "mean"\n'
        '  jax {\n    optimizer {\n      type: "SGDOptimizerSpec"\n'
        "      learning_rate {\n        constant: 0.001\n      }\n    }\n"
        "    max_ids_per_partition: 256\n    max_unique_ids_per_partition: 256\n  }\n}\n"
        'features {\n  name: "user"\n  table: "user"\n  output_shape: 128\n  output_shape: 16\n'
        "  input_shape: 128\n  input_shape: 1\n}\n"
        'features {\n  name: "video"\n  table: "video"\n  output_shape: 256\n  output_shape: 8\n'
        "  input_shape: 256\n}\n"
        'features {\n  name: "history"\n  table: "user"\n  output_shape: 128\n  output_shape: 16\n'
        "  input_shape: 128\n  input_shape: 1\n}\n"
        "jax {\n  global_device_count: 8\n  num_sc_per_device: 4\n}\n"
    )


def test_stacks_asked_for_and_stacks_the_library_made() -> None:
    a, b = TableSpec("a"), TableSpec("b", _setting_in_stack=Setting("a_b"))
    c = TableSpec("c", _setting_in_stack=Setting("c"))  # alone: its setting names itself
    features = [FeatureSpec("fa", a), FeatureSpec("fb", b), FeatureSpec("fc", c)]
    spec = spec_from_jax(features, global_device_count=1, num_sc_per_device=2, stacks={"s": ["a"]})
    assert [table.jax.stack for table in spec.tables] == ["s", "a_b", ""]


def test_two_tables_of_one_name_are_two_tables_by_index() -> None:
    features = [FeatureSpec("f", TableSpec("t")), FeatureSpec("g", TableSpec("t"))]
    spec = spec_from_jax(features, global_device_count=1, num_sc_per_device=2)
    assert [feature.table for feature in spec.features] == ["#0", "#1"]


def test_a_clean_setup_has_no_findings() -> None:
    assert codes([FeatureSpec("f", TableSpec("t"))]) == []


def test_jax_is_never_imported() -> None:
    # In a process of its own: another test of the run may have imported JAX.
    script = (
        "import sys, tpuemb_cli.jax as j; "
        "j.lint_jax([], global_device_count=1, num_sc_per_device=2); "
        "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")


def test_tensorflows_rules_do_not_run_on_a_jax_spec() -> None:
    # No topology and no spec optimizer: TensorFlow's spec rules (TE705, TE724) would fire.
    spec = spec_from_jax(
        [FeatureSpec("f", TableSpec("t"))], global_device_count=1, num_sc_per_device=2
    )
    assert not spec.HasField("optimizer") and not spec.HasField("topology")
    assert codes([FeatureSpec("f", TableSpec("t"))], global_device_count=1) == []


def test_compile_explain_and_diff_do_not_take_a_jax_spec_for_tensorflows(tmp_path: Path) -> None:
    # Compiled or explained as TensorFlow would build it, a JAX spec would show a config with no
    # optimizer and the wrong stacking; diff compares its stacked layout (compile --target jax's),
    # not TensorFlow's per-table checkpoint names.
    spec = spec_from_jax(
        [FeatureSpec("user", TableSpec("user"))], global_device_count=8, num_sc_per_device=4
    )
    path = tmp_path / "j.textproto"
    path.write_text(
        "# proto-message: tpuemb.spec.EmbeddingSpec\n" + text_format.MessageToString(spec)
    )
    runner = CliRunner()
    for args in (
        ["compile"],
        ["compile", "--target", "sparsecore"],
        ["explain"],
        ["explain", "--memory"],
    ):
        result = runner.invoke(main, [*args, str(path)])
        assert result.exit_code == 2, args
        assert "a spec for jax-tpu-embedding (it has a `jax` section)" in result.stderr
        assert result.stdout == ""
    result = runner.invoke(main, ["diff", "--show-files", str(path), str(path)])
    assert (result.exit_code, result.stdout) == (
        0,
        f"{path}: compared\n",
    )
    assert runner.invoke(main, ["check", str(path)]).exit_code == 0


def _stacked_by_the_library(rotation: int = 1) -> list[FeatureSpec]:
    """What stack_tables(["a", "b"], 1, 2, stack_name="ab", rotation=1) with limits of 512 and
    100 leaves on the objects: rows padded to 16 (8 x 2 SparseCores), b after a's 504 rows a
    shard, rotated by 1."""
    stack = StackedTableSpec("ab", 1520, 16, 256, 512, 100)
    a = TableSpec("a", max_ids_per_partition=64, _stacked_table_spec=stack)
    a._setting_in_stack = Setting("ab", 1008, 16, 0, 0)
    b = TableSpec("b", vocabulary_size=500, _stacked_table_spec=stack)
    b._setting_in_stack = Setting("ab", 512, 16, 504, rotation)
    return [
        FeatureSpec("fa", a, _id_transformation=IdTransformation(0, 0, 0)),
        FeatureSpec("fb", b, _id_transformation=IdTransformation(128, 1008, rotation)),
    ]


def test_the_rotation_and_limits_of_stacks_the_library_made_are_read() -> None:
    features = _stacked_by_the_library()
    spec = spec_from_jax(features, global_device_count=1, num_sc_per_device=2)
    assert (spec.jax.HasField("rotation"), spec.jax.rotation) == (True, 1)
    assert dict(spec.jax.stack_max_ids_per_partition) == {"ab": 512}
    assert dict(spec.jax.stack_max_unique_ids_per_partition) == {"ab": 100}
    assert [(t.jax.stack, t.jax.stack_position) for t in spec.tables] == [("ab", 0), ("ab", 504)]
    compiled = compile_jax(features, global_device_count=1, num_sc_per_device=2)
    (stack,) = compiled.stacked_table_specs
    assert (stack.max_ids_per_partition, stack.max_unique_ids_per_partition) == (512, 100)
    assert [t.shard_rotation for t in stack.table_specs] == [0, 1]
    # The library's default rotation (the SparseCores per device, 2 = 0 modulo 2) is left out.
    spec = spec_from_jax(_stacked_by_the_library(0), global_device_count=1, num_sc_per_device=2)
    assert not spec.jax.HasField("rotation")


def test_objects_stacked_as_no_spec_can_say_are_refused() -> None:
    features = _stacked_by_the_library()
    with pytest.raises(PreparedSpecError, match="its padded vocabulary 1008, tpuemb lays it out"):
        spec_from_jax(features, global_device_count=2, num_sc_per_device=2)
    features[1].table_spec._setting_in_stack.shard_rotation = 0
    features[1]._id_transformation.col_shift = 0
    other = TableSpec("c", _stacked_table_spec=StackedTableSpec("cd", 2016, 16, 256))
    other._setting_in_stack = Setting("cd", 1008, 16, 0, 0)
    last = TableSpec("d", _stacked_table_spec=other._stacked_table_spec)
    last._setting_in_stack = Setting("cd", 1008, 16, 504, 1)
    features += [FeatureSpec("fc", other), FeatureSpec("fd", last)]
    with pytest.raises(PreparedSpecError, match=r'different rotations, 0 \(stack "ab"\), 1'):
        spec_from_jax(features, global_device_count=1, num_sc_per_device=2)


def test_compile_jax_refuses_an_explicit_stack_of_two_optimizers_or_combiners() -> None:
    """As stack_tables does (tests/test_jax_front_oracle.py holds the messages against it)."""
    from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError

    for b, what in (
        (TableSpec("b", optimizer=AdagradOptimizerSpec(0.1)), "optimizers"),
        (TableSpec("b", optimizer=SGDOptimizerSpec(0.1), combiner="mean"), "combiners"),
    ):
        features = [
            FeatureSpec("fa", TableSpec("a", optimizer=SGDOptimizerSpec(0.1))),
            FeatureSpec("fb", b),
        ]
        with pytest.raises(JaxStackingError, match=f"in group s have different {what}"):
            compile_jax(
                features, global_device_count=8, num_sc_per_device=4, stacks={"s": ["a", "b"]}
            )


def test_limits_past_32_bits_are_held_as_the_librarys_int64() -> None:
    # The library takes them: spec_from_jax raised protobuf's bare "Value out of range".
    table = TableSpec("a", max_ids_per_partition=2**31, max_unique_ids_per_partition=2**40)
    spec = spec_from_jax(
        [FeatureSpec("f", table), FeatureSpec("g", TableSpec("b"))],
        global_device_count=4,
        num_sc_per_device=2,
        stacks={"s": ["a", "b"]},
        stack_limits={"s": (2**31, 5)},
    )
    assert (
        spec.tables[0].jax.max_ids_per_partition,
        spec.tables[0].jax.max_unique_ids_per_partition,
    ) == (2**31, 2**40)
    assert spec.jax.stack_max_ids_per_partition["s"] == 2**31


@pytest.mark.parametrize(
    ("feature", "said"),
    [
        (FeatureSpec("f", TableSpec("a"), input_shape=(2**31, 1)), r'feature "f"\'s input_shape'),
        (FeatureSpec("f", TableSpec("a", vocabulary_size=2**63)), r'table "a"\'s vocabulary'),
    ],
)
def test_a_value_a_spec_cannot_hold_is_named(feature: FeatureSpec, said: str) -> None:
    with pytest.raises(PreparedSpecError, match=said + ".*a spec holds a"):
        spec_from_jax([feature], global_device_count=4, num_sc_per_device=2)
