"""`tpuemb compile --target jax` and `tpuemb_cli.jax.compile_jax` without JAX: the goldens in
tests/data/jax/compile/ (each spec as spec_from_jax wrote it from the library's objects, and the
proto jax-tpu-embedding 0.1.0 wrote for it; tests/test_jax_compile_oracle.py checks them against
the library), output formats, the stacking the library would make, refusals and bad input."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from google.protobuf import json_format, text_format

from tests.jax_objects import AdagradOptimizerSpec, FeatureSpec, Setting, TableSpec
from tpuemb_cli.cli import main
from tpuemb_cli.frontends.jax.spec import stacking as jax_stacking
from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec
from tpuemb_cli.jax import compile_jax, spec_from_jax
from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec

GOLDEN = Path(__file__).parent / "data" / "jax" / "compile"
HEADER = "# proto-message: tpuemb.spec.EmbeddingSpec\n"
KERAS_EXAMPLE = Path(__file__).parent.parent / "examples" / "keras" / "ranking.keras"


def _compile(*args: str) -> Result:
    return CliRunner().invoke(main, ["compile", "--target", "jax", *args])


@pytest.mark.parametrize("name", ["alone", "auto", "explicit"])
def test_the_librarys_proto_in_every_format(name: str, tmp_path: Path) -> None:
    spec = str(GOLDEN / f"{name}.spec.textproto")
    expected = (GOLDEN / f"{name}.library.pbtxt").read_text()
    result = _compile(spec)
    assert (result.exit_code, result.stdout, result.stderr) == (0, expected, "")
    message = text_format.Parse(expected, EmbeddingSpecProto())
    out = tmp_path / "out.binpb"
    result = _compile(spec, "--to", "binary", "-o", str(out))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert out.read_bytes() == message.SerializeToString()
    result = _compile(spec, "--to", "json")
    assert result.exit_code == 0
    assert json_format.Parse(result.stdout, EmbeddingSpecProto()) == message


def test_the_goldens_show_what_they_are_for() -> None:
    auto = text_format.Parse((GOLDEN / "auto.library.pbtxt").read_text(), EmbeddingSpecProto())
    # Widths 12 and 16 pad alike and stack; the table whose activations pass 2 MiB is apart.
    assert [s.stack_name for s in auto.stacked_table_specs] == [
        "query_history",
        "country",
        "category",
        "clicks_in_the_last_thirty_days_by_item",
    ]
    explicit = text_format.Parse(
        (GOLDEN / "explicit.library.pbtxt").read_text(), EmbeddingSpecProto()
    )
    shared = explicit.stacked_table_specs[0]
    # Listed by first use (a, c), laid out in the order asked for (c, a), rotated by 1.
    assert [
        (t.table_name, t.row_offset_in_shard, t.shard_rotation) for t in shared.table_specs
    ] == [
        ("a", 8, 1),
        ("c", 0, 0),
    ]
    assert (shared.max_ids_per_partition, shared.max_unique_ids_per_partition) == (512, 128)
    alone = text_format.Parse((GOLDEN / "alone.library.pbtxt").read_text(), EmbeddingSpecProto())
    video = alone.stacked_table_specs[0].table_specs[0]
    # A shared table's features offset in the order of their names, listed in flatten order.
    assert [(f.feature_name, f.row_offset) for f in video.feature_specs] == [
        ("watch_b", 64),
        ("watch_a", 0),
    ]


def test_the_api_compiles_live_objects_as_the_command_does(tmp_path: Path) -> None:
    a = TableSpec("a", optimizer=AdagradOptimizerSpec(0.1))
    b = TableSpec("b", vocabulary_size=70, embedding_dim=12, optimizer=AdagradOptimizerSpec(0.1))
    c = TableSpec("c", embedding_dim=64)
    features = {
        "y": [
            FeatureSpec("fb", b, output_shape=(128, 12)),
            FeatureSpec("fc", c, output_shape=(128, 64)),
        ],
        "x": FeatureSpec("fa", a),
    }
    options: dict[str, Any] = {"global_device_count": 2, "num_sc_per_device": 4, "auto_stack": True}
    proto = compile_jax(features, **options)
    # Sorted dict keys: a is used first; a and b (one optimizer, widths 16 and 12) stack.
    assert [
        (s.stack_name, [t.table_name for t in s.table_specs]) for s in proto.stacked_table_specs
    ] == [
        ("a_b", ["a", "b"]),
        ("c", ["c"]),
    ]
    path = tmp_path / "spec.textproto"
    path.write_text(HEADER + text_format.MessageToString(spec_from_jax(features, **options)))
    result = _compile(str(path))
    assert (result.exit_code, result.stdout) == (0, text_format.MessageToString(proto))


def test_spec_from_jax_records_the_stacking_asked_for() -> None:
    a, b, c = TableSpec("a"), TableSpec("b"), TableSpec("c")
    features = [FeatureSpec("fa", a), FeatureSpec("fb", b), FeatureSpec("fc", c)]
    spec = spec_from_jax(
        features,
        global_device_count=1,
        num_sc_per_device=2,
        stacks={"s": ["b", "a"]},
        rotation=0,
        use_short_stack_names=False,
        stack_limits={"s": (100, 50)},
    )
    assert [(t.jax.stack, t.jax.stack_position) for t in spec.tables] == [
        ("s", 1),
        ("s", 0),
        ("", 0),
    ]
    assert not spec.tables[2].jax.HasField("stack_position")
    assert text_format.MessageToString(spec.jax) == (
        "global_device_count: 1\nnum_sc_per_device: 2\nlong_stack_names: true\nrotation: 0\n"
        'stack_max_ids_per_partition {\n  key: "s"\n  value: 100\n}\n'
        'stack_max_unique_ids_per_partition {\n  key: "s"\n  value: 50\n}\n'
    )
    assert jax_stacking.groups(spec) == {"s": [1, 0]}


def test_a_table_the_library_stacked_keeps_its_place() -> None:
    class Placed(Setting):
        def __init__(self, stack_name: str, row_offset_in_shard: int) -> None:
            super().__init__(stack_name)
            self.row_offset_in_shard = row_offset_in_shard

    a = TableSpec("a", _setting_in_stack=Placed("ab", 64))
    b = TableSpec("b", _setting_in_stack=Placed("ab", 0))
    spec = spec_from_jax(
        [FeatureSpec("fa", a), FeatureSpec("fb", b)], global_device_count=1, num_sc_per_device=2
    )
    assert jax_stacking.groups(spec) == {"ab": [1, 0]}


def test_auto_stacking_groups_as_the_librarys_optimizer_hash_does() -> None:
    # Two optimizer objects with one hash are one optimizer to the library; another learning
    # rate is another.
    same = [AdagradOptimizerSpec(0.1), AdagradOptimizerSpec(0.1), AdagradOptimizerSpec(0.2)]
    tables = [TableSpec(f"t{i}", optimizer=optimizer) for i, optimizer in enumerate(same)]
    features = [FeatureSpec(f"f{i}", table) for i, table in enumerate(tables)]
    spec = spec_from_jax(features, global_device_count=1, num_sc_per_device=2, auto_stack=True)
    assert jax_stacking.groups(spec) == {"t0_t1": [0, 1], "t2": [2]}


def _library_split(activations: list[int]) -> list[list[int]]:
    """``_split_groups_by_memory_limit`` at v0.1.0 on one group, as the library writes it:
    every stack's tables summed again for every table."""
    split: list[list[int]] = []
    for index, activation in enumerate(activations):
        for candidate in split:
            taken = sum(activations[member] for member in candidate)
            if taken + activation <= jax_stacking.ACTIVATION_LIMIT:
                candidate.append(index)
                break
        else:
            split.append([index])
    return split


@pytest.mark.slow
def test_the_first_fit_split_is_the_librarys_loop() -> None:
    limit = jax_stacking.ACTIVATION_LIMIT
    drawn = random.Random(28)
    pool = (0, 1, limit // 3, limit // 2, limit // 2 + 1, limit - 1, limit, limit + 1)
    cases: list[list[int]] = [[]] + [
        [drawn.choice((drawn.choice(pool), drawn.randint(0, limit))) for _ in range(size)]
        for size in [drawn.randint(1, 200) for _ in range(300)]
    ]
    # Hundreds of stacks, each with room that later tables fill.
    cases.append([drawn.randint(limit // 4, limit) for _ in range(1_000)])
    for activations in cases:
        ours = jax_stacking._first_fit(
            list(range(len(activations))), dict(enumerate(activations)), limit
        )
        assert ours == _library_split(activations)
    assert len(ours) > 100


@pytest.mark.parametrize(
    "args",
    [
        ["check", str(GOLDEN / "auto.spec.textproto")],
        ["compile", "--target", "jax", str(GOLDEN / "auto.spec.textproto")],
        ["check", "--keras-backend", "jax", "--tpu", "v5p-8", str(KERAS_EXAMPLE)],
    ],
)
def test_a_spec_is_auto_stacked_once_for_every_rule(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each JAX rule and a Keras layer's conversion stacked the tables again (five times for a
    # Keras layer): the engine keeps the stacking with the spec's facts.
    calls: list[int] = []
    stack = jax_stacking._auto_groups

    def counted(*given: Any) -> list[list[int]]:
        calls.append(1)
        return stack(*given)

    monkeypatch.setattr(jax_stacking, "_auto_groups", counted)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == (1 if args[-1].endswith(".keras") else 0), result.output
    assert len(calls) == 1


def test_a_long_stack_name_is_shortened_as_the_library_does() -> None:
    names = [f"table_number_{i}" for i in range(5)]
    joined = "_".join(names)
    digest = hashlib.sha256(joined.encode()).hexdigest()[:12]
    assert jax_stacking.stack_name(names) == f"{joined[:50]}...{digest}"
    assert jax_stacking.stack_name(names, short=False) == joined
    assert jax_stacking.stack_name(["a", "b"]) == "a_b"


def test_what_the_library_refuses_is_not_compiled(tmp_path: Path) -> None:
    text = (GOLDEN / "explicit.spec.textproto").read_text()
    path = tmp_path / "mixed.spec.textproto"
    # "c" with Adagrad in the stack of "a" (SGD): stack_tables raises.
    path.write_text(
        text.replace(
            'name: "c"\n  vocabulary_size: 20\n  dim: 30\n  combiner: "sum"\n  jax {\n'
            '    optimizer {\n      type: "SGDOptimizerSpec"',
            'name: "c"\n  vocabulary_size: 20\n  dim: 30\n  combiner: "sum"\n  jax {\n'
            '    optimizer {\n      type: "AdagradOptimizerSpec"',
        )
    )
    assert path.read_text() != text
    result = _compile(str(path))
    assert (result.exit_code, result.stdout) == (1, "")
    assert " TE692 [error] " in result.stderr
    assert result.stderr.endswith(
        "tpuemb: error: " + f"{path}: not compiled: the spec has errors\n"
    )
    # With TE696 off, compile still refuses what the library refuses, and says why.
    auto = tmp_path / "both.spec.textproto"
    auto.write_text(text.replace("rotation: 1", "rotation: 1\n  auto_stack: true"))
    (tmp_path / ".tpuemb.toml").write_text('ignore = ["TE696"]\n')
    result = _compile(str(auto))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f'tpuemb: error: {auto}: not compiled: tables.2.jax.stack: table "c" is put in stack '
        '"shared" and the tables are auto-stacked too: stack_tables raises ValueError (the '
        "table is already stacked)\n"
    )


def test_a_spec_without_a_jax_section_and_bad_input(tmp_path: Path) -> None:
    result = _compile("examples/recommender.spec.yaml")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "tpuemb: error: examples/recommender.spec.yaml: not compiled: --target jax takes a spec "
        "for jax-tpu-embedding (with a `jax` section, as tpuemb_cli.jax.spec_from_jax writes); "
        "this one has none\n"
    )
    missing = _compile(str(tmp_path / "missing.spec.yaml"))
    assert missing.exit_code == 2 and missing.stderr.startswith("tpuemb: error: ")
    garbage = tmp_path / "garbage.spec.textproto"
    garbage.write_bytes(HEADER.encode() + b"jax { global_device_count: \xff }\n")
    result = _compile(str(garbage))
    assert result.exit_code in (1, 2) and "Traceback" not in result.output
    assert result.stdout == ""


def test_a_stack_too_large_for_the_proto(tmp_path: Path) -> None:
    # 2^63 - 1 rows padded to a multiple of 8 x 2^31 SparseCores pass int64: the library's proto
    # cannot hold it.
    text = (GOLDEN / "alone.spec.textproto").read_text()
    path = tmp_path / "huge.spec.textproto"
    path.write_text(
        text.replace("vocabulary_size: 1000", f"vocabulary_size: {2**63 - 1}").replace(
            "global_device_count: 4", f"global_device_count: {2**29}"
        )
    )
    spec = text_format.Parse(path.read_text(), EmbeddingSpec())
    assert spec.tables[1].vocabulary_size == 2**63 - 1
    with pytest.raises(jax_stacking.JaxStackingError, match="past what the proto's int64 holds"):
        compile_jax_spec(spec)


class CustomOptimizerSpec:
    def __init__(self, update: Any, learning_rate: float = 0.1) -> None:
        self.learning_rate = learning_rate
        self.custom_computation_fn = update
        self.slot_variable_initializers_tuple = ()
        self.short_name_str = "mine"


def test_custom_optimizers_are_told_apart_by_their_stablehlo() -> None:
    # 0.2.0's CustomOptimizerSpec hashes its StableHLO module too: the same function with two
    # modules is two optimizers, which auto-stacking keeps apart.
    def update() -> None: ...

    optimizers = [CustomOptimizerSpec(update) for _ in range(3)]
    modules = ["module @a {}", "module @a {}", "module @b {}"]
    for optimizer, module in zip(optimizers, modules, strict=True):
        optimizer.stablehlo = module  # type: ignore[attr-defined]
    tables = [TableSpec(f"t{i}", optimizer=optimizer) for i, optimizer in enumerate(optimizers)]
    features = [FeatureSpec(f"f{i}", table) for i, table in enumerate(tables)]
    spec = spec_from_jax(features, global_device_count=1, num_sc_per_device=2, auto_stack=True)
    assert [t.jax.optimizer.custom for t in spec.tables] == ["mine#0", "mine#0", "mine#1"]
    assert jax_stacking.groups(spec) == {"t0_t1": [0, 1], "t2": [2]}


def test_custom_optimizers_are_told_apart_by_their_update_function() -> None:
    def one() -> None: ...

    def two() -> None: ...

    optimizers = [CustomOptimizerSpec(one), CustomOptimizerSpec(one), CustomOptimizerSpec(two)]
    tables = [TableSpec(f"t{i}", optimizer=optimizer) for i, optimizer in enumerate(optimizers)]
    features = [FeatureSpec(f"f{i}", table) for i, table in enumerate(tables)]
    spec = spec_from_jax(features, global_device_count=1, num_sc_per_device=2, auto_stack=True)
    assert [t.jax.optimizer.custom for t in spec.tables] == ["mine#0", "mine#0", "mine#1"]
    assert jax_stacking.groups(spec) == {"t0_t1": [0, 1], "t2": [2]}


@pytest.mark.slow  # compiles and checks 1,000 and 10,000 tables: seconds
def test_many_tables_take_time_in_proportion(tmp_path: Path) -> None:
    # Each feature's table was found by a scan of the tables, many times over: 2,000 tables took
    # 8.6 s and 10,000 did not finish in a minute. Ten times the tables must take about ten times
    # as long, measured against the smaller spec in the same run (not against a clock).
    import time

    def spec(count: int) -> Path:
        features = [FeatureSpec(f"f{i}", TableSpec(f"t{i}")) for i in range(count)]
        path = tmp_path / f"alone{count}.textproto"
        made = spec_from_jax(features, global_device_count=4, num_sc_per_device=2)
        path.write_text(HEADER + text_format.MessageToString(made))
        return path

    took: dict[int, float] = {}
    for count in (1_000, 10_000):
        path = spec(count)
        started = time.perf_counter()
        out = str(tmp_path / "out.textproto")
        for command in (["check", str(path)], ["compile", str(path), "--target", "jax", "-o", out]):
            result = CliRunner().invoke(main, command)
            assert result.exit_code == 0, result.output[:500]
        took[count] = time.perf_counter() - started
    assert took[10_000] < 30 * took[1_000], took


def test_products_past_what_python_writes_in_digits_are_findings(tmp_path: Path) -> None:
    # 500 dimensions of 2^31 - 1 multiply to some 15,500 bits: Python refuses to write such an
    # integer in digits (4,300 at most), and compile stopped with an internal error.
    # No input shape: jax-batch-mismatch (which such an output shape is) stays out of the way.
    shape = (128, *[2**31 - 1] * 500, 16)
    features = [FeatureSpec("f", TableSpec("a"), input_shape=(), output_shape=shape)]
    spec = spec_from_jax(features, global_device_count=4, num_sc_per_device=2)
    path = tmp_path / "huge.textproto"
    path.write_text(HEADER + text_format.MessageToString(spec))
    result = CliRunner().invoke(main, ["compile", str(path), "--target", "jax"])
    assert result.exit_code == 1, result.output[-500:]
    assert "has a sample count of an integer of 15,5" in result.stderr
    assert "internal error" not in result.output + result.stderr


# --jax-version 0.2.0: that release's proto, three fields more (tests/test_jax_compile_oracle.py
# checks it against 0.2.0 itself; the goldens are what 0.2.0 wrote).


@pytest.mark.parametrize("name", ["alone", "auto", "explicit"])
def test_jax_version_020_writes_that_releases_proto(name: str, tmp_path: Path) -> None:
    spec = str(GOLDEN / f"{name}.spec.textproto")
    expected = (GOLDEN / f"{name}.library-0.2.0.pbtxt").read_text()
    result = _compile(spec, "--jax-version", "0.2.0")
    assert (result.exit_code, result.stdout, result.stderr) == (0, expected, "")
    message = text_format.Parse(expected, EmbeddingSpecProto())
    out = tmp_path / "out.binpb"
    result = _compile(spec, "--jax-version", "0.2.0", "--to", "binary", "-o", str(out))
    assert (result.exit_code, result.stderr) == (0, "")
    assert out.read_bytes() == message.SerializeToString(deterministic=True)
    # 0.1.0's is 0.2.0's without the stack's activation limit and the tables' combiner and
    # optimizer; the default is 0.1.0.
    for stack in message.stacked_table_specs:
        assert stack.activation_mem_bytes_limit == 2 * 1024 * 1024
        stack.ClearField("activation_mem_bytes_limit")
        for table in stack.table_specs:
            assert table.combiner == "sum" and table.HasField("optimizer")
            table.ClearField("combiner")
            table.ClearField("optimizer")
    assert _compile(spec).stdout == text_format.MessageToString(message)


def test_jax_version_020_optimizer_fields() -> None:
    # Each class's parameters from the library's own lists; LaProp and custom ones are CUSTOM,
    # without parameters.
    spec = spec_from_jax(
        [
            FeatureSpec(
                "f", TableSpec("a", 100, 8, AdagradOptimizerSpec(0.5, 0.25)), (16, 1), (16, 8)
            ),
        ],
        global_device_count=2,
        num_sc_per_device=2,
    )
    proto = compile_jax_spec(spec, version="0.2.0")
    optimizer = proto.stacked_table_specs[0].table_specs[0].optimizer
    assert text_format.MessageToString(optimizer, as_one_line=True) == (
        'type: ADAGRAD learning_rate: 0.5 float_params { key: "initial_accumulator_value" '
        "value: 0.25 }"
    )
    spec.tables[0].jax.optimizer.type = "LaPropOptimizerSpec"
    spec.tables[0].jax.optimizer.settings["b1"] = 0.9
    table = compile_jax_spec(spec, version="0.2.0").stacked_table_specs[0].table_specs[0]
    assert text_format.MessageToString(table.optimizer, as_one_line=True) == (
        "type: CUSTOM learning_rate: 0.5"
    )


def test_jax_version_020_refuses_what_it_cannot_write(tmp_path: Path) -> None:
    text = (GOLDEN / "auto.spec.textproto").read_text()
    scheduled = tmp_path / "scheduled.spec.textproto"
    scheduled.write_text(
        text.replace(
            "learning_rate {\n        constant: 0.1\n      }",
            'learning_rate {\n        schedule: "decay"\n      }',
            1,
        )
        + 'schedules {\n  name: "decay"\n}\n'
    )
    result = _compile(str(scheduled), "--jax-version", "0.2.0")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"tpuemb: error: {scheduled}: not compiled: table 'query' has a learning-rate schedule: "
        "jax-tpu-embedding 0.2.0 records it by the callable's tag (its `tag`, else its module and "
        "name), which the spec does not hold; compile it for 0.1.0 (--jax-version 0.1.0)\n"
    )
    assert _compile(str(scheduled)).exit_code == 0
    quantized = tmp_path / "quantized.spec.textproto"
    quantized.write_text(
        text.replace("  dim: 16\n", "  dim: 16\n  quantization {\n    num_buckets: 16\n  }\n", 1)
    )
    result = _compile(str(quantized), "--jax-version", "0.2.0")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        # 0.1.0's stacking drops the quantization (jax-stacking-drops-setting, a warning).
        f'{quantized}:6:3: TE677 [warning] table "query" is quantized, but auto_stack_tables puts '
        'it in stack "query_history" with no quantization_config (jax-tpu-embedding 0.1.0; 0.2.0 '
        "keeps it): its lookups and training are in full precision, without a word\n"
        "Found 1 warning in 1 file (1 file checked).\n"
        f"tpuemb: error: {quantized}: not compiled: a stacked spec with a quantized table: "
        "jax-tpu-embedding 0.2.0 also stacks by quantization, which tpuemb does not model; "
        "compile it for 0.1.0 (--jax-version 0.1.0)\n"
    )
    assert _compile(str(quantized)).exit_code == 0
    bad = _compile(str(GOLDEN / "auto.spec.textproto"), "--jax-version", "0.3.0")
    assert bad.exit_code == 2 and "'0.3.0' is not one of '0.1.0', '0.2.0'" in bad.stderr
    with pytest.raises(ValueError, match=re.escape("version '0.3.0': tpuemb writes 0.1.0, 0.2.0")):
        compile_jax([], global_device_count=2, num_sc_per_device=2, version="0.3.0")
