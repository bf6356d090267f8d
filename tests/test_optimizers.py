"""The optimizer table (tpuemb_cli.model.optimizers): it matches the protos, and everything that
knows an optimizer reads it.

The toy-row tests put a changed row in the table (``monkeypatch`` on ``optimizers.TABLE``) and run
the real front ends -- ``compile``, ``explain``, ``explain --memory``, ``diff``, ``check``, the
rules, ``spec_from_tf``, the SparseCore group key -- and every output changes where, and only
where, the row says. What this proves and what it does not:

- The protos' oneofs are fixed, so a toy row can only stand for an algorithm they have: ``TOY``
  is Adam's row with another class name, a third slot, other defaults and another learning rate;
  ``MOMENTUM`` makes the config's ``momentum``, which the mid-level API does not build, a class.
  A new optimizer also needs its messages in the protos (and the spec's oneof) and its rules; the
  tests show that the table is the one place its facts go, not that a proto change is free.
- ``load.aliases`` builds its name table when it is imported, so a row swapped in later does not
  reach the name suggestions; ``tests/test_nearest.py`` checks those against the spec compiler.
- Each expected output below was worked out from the row (slots, bytes = rows x dim x arrays x
  4, defaults), not only recorded: the comments say how.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main
from tpuemb_cli.model import optimizers
from tpuemb_cli.model.optimizers import Argument, Optimizer
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.pb.spec.embedding_spec_pb2 import Optimizer as SpecOptimizer
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
from tpuemb_cli.spec.compiler import compile_spec
from tpuemb_cli.spec.sparsecore_groups import optimizer_dict
from tpuemb_cli.tf import spec_from_tf

from .helpers import lint, optimizer

ROOT = Path(__file__).parent.parent


def _class(spec: str) -> Optimizer:
    found = optimizers.of_spec(spec)
    assert found is not None
    return found


ADAM = _class("adam")
# Adam's row with every fact changed: values a float32 holds exactly, so they print as written.
TOY = dataclasses.replace(
    ADAM,
    tf_class="ToyAdam",
    slots=(*ADAM.slots, "toys"),
    learning_rate=0.125,
    arguments=(
        Argument("beta_1", 0.5, "beta1"),
        Argument("beta_2", 0.75, "beta2"),
        Argument("epsilon", 0.25, "epsilon"),
        Argument("lazy_adam", False, "use_non_lazy_adam", inverted=True),
        Argument("sum_inside_sqrt", False, "use_sum_inside_sqrt"),
    ),
)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    table = tuple(TOY if row is ADAM else row for row in optimizers.TABLE)
    monkeypatch.setattr(optimizers, "TABLE", table)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder to run the commands in, with the output format their default."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("TPUEMB_FORMAT", raising=False)
    return tmp_path


@pytest.fixture
def files(here: Path) -> None:
    (here / "new.spec.yaml").write_text(SPEC)
    (here / "old.spec.yaml").write_text(SPEC.replace("adam: {}", "adagrad: {}"))


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


# One table on SparseCores: compile, explain (with the stacking), memory, diff all apply.
SPEC = """\
tables:
  - {name: video, vocabulary_size: 1000, dim: 12, optimizer: {adam: {}}}
features:
  - {table: video, output_shape: [16]}
topology: {num_hosts: 1, cores_per_host: 4, per_replica_batch_size: 16, sparse_cores_per_chip: 4}
sparse_core: {}
"""


# -- the table and the protos -------------------------------------------------------------------


def test_every_algorithm_of_the_config_has_one_row() -> None:
    oneof = OptimizationParameters.DESCRIPTOR.oneofs_by_name["parameters"]
    fields = [row.field for row in optimizers.TABLE]
    assert sorted(fields) == sorted(field.name for field in oneof.fields)
    assert all(optimizers.algorithm(field) is not None for field in fields)


def test_every_class_is_an_algorithm_of_the_spec_with_its_fields() -> None:
    oneof = SpecOptimizer.DESCRIPTOR.oneofs_by_name["algorithm"]
    classes = optimizers.optimizers()
    assert sorted(row.spec for row in classes) == sorted(
        field.name for field in oneof.fields if field.name != "custom"
    )
    assert len({row.tf_class for row in classes}) == len(classes)
    for row in classes:
        assert optimizers.of_class(row.tf_class) is row is optimizers.optimizer(row.field)
        spec_fields: Any = SpecOptimizer.DESCRIPTOR.fields_by_name[row.spec].message_type
        config_fields: Any = OptimizationParameters.DESCRIPTOR.fields_by_name[
            row.field
        ].message_type
        # The spec's message holds exactly the class's arguments; each config field is written
        # by one argument at most.
        assert sorted(a.name for a in row.arguments) == sorted(spec_fields.fields_by_name)
        written = [a.field for a in row.arguments if a.field is not None]
        assert len(written) == len(set(written))
        assert set(written) <= set(config_fields.fields_by_name), row.field


def test_every_argument_written_to_the_config_is_traced_back_to_the_spec() -> None:
    # A finding or a change on a config field of an algorithm points at the spec field it came
    # from (lazy_adam for use_non_lazy_adam, learning_rate_power for lr_power, ...).
    for row in optimizers.optimizers():
        spec = EmbeddingSpec()
        getattr(
            spec.tables.add(name="t", vocabulary_size=8, dim=2).optimizer, row.spec
        ).SetInParent()
        spec.features.add(table="t")
        compiled = compile_spec(spec)
        base = ("table_descriptor", 0, "optimization_parameters", row.field)
        for argument in row.arguments:
            if argument.field is not None:
                path = compiled.spec_path(base + (argument.field,))
                assert path == ("tables", 0, "optimizer", row.spec, argument.name)


def test_docs_list_each_classes_slots() -> None:
    # docs/diff.md's table of slot variables says what the table says.
    text = (ROOT / "docs" / "diff.md").read_text()
    rows = re.findall(r"^  \| `(\w+)` \| `(\w+)` \| (.+) \|$", text, re.MULTILINE)
    documented = {(name, field, slots) for name, field, slots in rows}
    expected = {
        (row.tf_class, row.field, ", ".join(f"`{slot}`" for slot in row.slots) or "none")
        for row in optimizers.optimizers()
    }
    assert documented == expected


# -- a toy row: every front end follows it -----------------------------------------------------

# use_non_lazy_adam: lazy_adam's default is False, inverted; use_sum_inside_sqrt False is not
# written; the learning rate is the class's default.
COMPILED = """\
table_descriptor {
  name: "video"
  vocabulary_size: 1000
  dimension: 12
  optimization_parameters {
    adam {
      beta1: 0.5
      beta2: 0.75
      epsilon: 0.25
      use_non_lazy_adam: true
    }
    learning_rate {
      constant: 0.125
    }
    gradient_accumulation_status: ENABLED
  }
}
mode: TRAINING
num_hosts: 1
num_tensor_cores: 4
feature_descriptor {
  input_shape: 16
}
"""
# The padded 1024 x 16 table holds the parameters and three slots: 1024 x 16 x 4 arrays x 4 bytes
# = 256 KiB, of which (1024 x 16 - 1000 x 12) x 4 x 4 = 70,144 bytes (68.5 KiB) are padding.
PADDING = (
    'new.spec.yaml:2:5: TE653 [info] table "video" is padded from 1000 x 12 to 1024 x 16 on 16 '
    "SparseCores: 26.8% of its 256.0 KiB (parameters and momenta, velocities, toys, float32) is "
    "padding (68.5 KiB)\n"
    "Found 1 info in 1 file (1 file checked).\n"
)


@pytest.mark.usefixtures("files", "toy")
def test_compile_writes_the_rows_defaults() -> None:
    result = invoke("compile", "new.spec.yaml", "--to", "text")
    assert (result.exit_code, result.stdout, result.stderr) == (0, COMPILED, PADDING)


@pytest.mark.usefixtures("files")
def test_without_the_toy_row_the_same_spec_compiles_to_adams_defaults() -> None:
    result = invoke("compile", "new.spec.yaml", "--to", "text")
    assert "beta1: 0.9" in result.stdout and "constant: 0.001" in result.stdout
    assert "(parameters and momenta, velocities, float32)" in result.stderr


@pytest.mark.usefixtures("files", "toy")
def test_explain_names_the_class_and_counts_its_slots() -> None:
    result = invoke("explain", "new.spec.yaml")
    assert result.exit_code == 0
    # The default learning rate is the row's; the stack is labelled with the row's class; its
    # padding is (1024 x 16 - 1000 x 12) x 4 bytes x 4 arrays = 68.5 KiB.
    assert "video  1,000 x 12  adam       0.125 " in result.stdout
    assert (
        "stack 1 of 1: 1 table, width 16, 64 rows per SparseCore (ToyAdam, default learning rate)"
        in result.stdout
    )
    assert "  video  1,000 x 12  1,024 x 16  26.8% (68.5 KiB)  0           0\n" in result.stdout


@pytest.mark.usefixtures("files", "toy")
def test_memory_counts_the_rows_slot_variables_on_sparsecores() -> None:
    result = invoke("explain", "new.spec.yaml", "--memory", "--format", "json")
    # TPUEmbeddingV2: 1,024 x 16 padded rows over 16 SparseCores, the parameters and the row's
    # three slots (no gradient accumulator): 64 x 16 x 4 arrays x 4 bytes a SparseCore.
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["engine"] == "sparsecore"
    assert document["stacks"][0]["arrays"] == ["parameters", "momenta", "velocities", "toys"]
    assert document["per_sparse_core_bytes"] == 64 * 16 * 4 * 4


@pytest.mark.usefixtures("files", "toy")
def test_memory_counts_the_rows_state_arrays(here: Path) -> None:
    # The same table on TensorCores.
    spec = here / "new.spec.yaml"
    spec.write_text(spec.read_text().replace("sparse_core: {}\n", ""))
    result = invoke("explain", "new.spec.yaml", "--memory", "--format", "json")
    # 250 rows x 12 x 5 arrays x 4 bytes.
    assert result.exit_code == 0
    assert '"per_core_bytes": 60000,' in result.stdout
    assert (
        '"state_arrays": [\n        "parameters",\n        "momenta",\n        "velocities",\n'
        '        "toys",\n        "gradient_accumulators"\n      ],\n'
        '      "bytes_per_shard": 60000,'
    ) in result.stdout


@pytest.mark.usefixtures("files", "toy")
def test_diff_knows_the_rows_slots_and_class(here: Path) -> None:
    # The same tables on TensorCores: diff does not compare SparseCore stacks (yet).
    for name in ("old.spec.yaml", "new.spec.yaml"):
        (here / name).write_text((here / name).read_text().replace("sparse_core: {}\n", ""))
    result = invoke("diff", "old.spec.yaml", "new.spec.yaml")
    where = "new.spec.yaml:2:51: "
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        f"{where}TE952 [error] silent-reinit: Adagrad -> ToyAdam: the slot `video/momenta` "
        "starts from its initializer: Adagrad left no `momenta` in the checkpoint\n"
        f"{where}TE952 [error] silent-reinit: Adagrad -> ToyAdam: the slot `video/velocities` "
        "starts from its initializer: Adagrad left no `velocities` in the checkpoint\n"
        f"{where}TE952 [error] silent-reinit: Adagrad -> ToyAdam: the slot `video/toys` "
        "starts from its initializer: Adagrad left no `toys` in the checkpoint\n"
        f"{where}TE953 [warning] orphaned-state: Adagrad -> ToyAdam: the checkpoint's slot "
        "`video/accumulators` is restored by nothing: ToyAdam has no `accumulators`\n"
        f"{where}TE954 [warning] training-change: the optimizer changes from Adagrad to "
        "ToyAdam\n"
        f"{where}TE954 [warning] training-change: `learning_rate.constant` changes from 0.001 "
        "to 0.125\n"
        "Found 6 changes: 3 silent-reinit, 1 orphaned-state, 2 training-change (1 file pair "
        "compared).\n",
        "",
    )


@pytest.mark.usefixtures("toy")
def test_the_rules_quote_the_rows_defaults_and_class() -> None:
    spec = lint(SPEC.replace("adam: {}", "adam: {beta_2: 1.0, epsilon: 0}"), fmt="yaml")
    assert [(f.rule, f.message, f.fix) for f in spec if f.rule == "TE706"] == [
        (
            "TE706",
            "ToyAdam's beta_2 is 1.0; it must be >= 0 and < 1",
            "use a decay rate in [0, 1), typically 0.75",
        ),
        ("TE706", "ToyAdam's epsilon is 0.0; it must be positive", "use 0.25 (the default)"),
    ]
    config = lint(optimizer("adam { beta1: 1.5 beta2: 0.5 }"))
    assert sorted((f.rule, f.fix) for f in config if f.rule in ("TE202", "TE203")) == [
        ("TE202", "use a decay rate in [0, 1), typically 0.5"),
        ("TE203", "set `epsilon: 0.25` (TensorFlow's default)"),
    ]


@pytest.mark.usefixtures("toy")
def test_the_sparsecore_group_key_hashes_the_rows_defaults() -> None:
    adam = SpecOptimizer()
    adam.adam.beta_2 = 0.5
    items = optimizer_dict(adam)
    assert items[1] == ("learning_rate", 0.125)
    assert items[-5:] == [
        ("beta_1", 0.5),
        ("beta_2", 0.5),
        ("epsilon", 0.25),
        ("lazy_adam", False),
        ("sum_inside_sqrt", False),
    ]


class ToyAdam:
    """What spec_from_tf reads of an optimizer object: its class's name and attributes."""

    learning_rate = 0.5
    beta_1 = 0.25
    lazy_adam = True


def _live_objects() -> SimpleNamespace:
    table = SimpleNamespace(
        name="video", vocabulary_size=1000, dim=12, combiner="mean", optimizer=None
    )
    return SimpleNamespace(table=table, name="watched", max_sequence_length=0, output_shape=[16])


def test_spec_from_tf_finds_the_class_by_the_rows_name(monkeypatch: pytest.MonkeyPatch) -> None:
    before = spec_from_tf(_live_objects(), ToyAdam(), num_hosts=1, cores_per_host=4)
    assert before.optimizer.WhichOneof("algorithm") == "custom"  # no row names ToyAdam
    monkeypatch.setattr(
        optimizers, "TABLE", tuple(TOY if row is ADAM else row for row in optimizers.TABLE)
    )
    after = spec_from_tf(_live_objects(), ToyAdam(), num_hosts=1, cores_per_host=4)
    assert after.optimizer.WhichOneof("algorithm") == "adam"
    assert (after.optimizer.adam.beta_1, after.optimizer.adam.lazy_adam) == (0.25, True)
    assert not after.optimizer.adam.HasField("beta_2")  # the object has no such attribute


# -- an algorithm of the config made a class -----------------------------------------------------

MOMENTUM = Optimizer(
    field="momentum",
    slots=("momenta",),
    tf_class="Momentum",
    spec="momentum",
    learning_rate=0.01,
    arguments=(),
    sparsecore=False,
)


def test_a_config_algorithm_given_a_class_row_gets_its_slots_in_diff(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (here / "old.pbtxt").write_text(optimizer("adagrad {}"))
    (here / "new.pbtxt").write_text(optimizer("momentum { momentum: 0.9 }"))
    unknown = invoke("diff", "old.pbtxt", "new.pbtxt").stdout
    assert "tpuemb does not know the slot variables of `momentum`" in unknown
    monkeypatch.setattr(
        optimizers,
        "TABLE",
        tuple(MOMENTUM if row.field == "momentum" else row for row in optimizers.TABLE),
    )
    result = invoke("diff", "old.pbtxt", "new.pbtxt")
    where = "new.pbtxt:6:5: "
    assert result.stdout == (
        f"{where}TE952 [error] silent-reinit: Adagrad -> Momentum: the slot `video/momenta` "
        "starts from its initializer: Adagrad left no `momenta` in the checkpoint\n"
        f"{where}TE953 [warning] orphaned-state: Adagrad -> Momentum: the checkpoint's slot "
        "`video/accumulators` is restored by nothing: Momentum has no `accumulators`\n"
        f"{where}TE954 [warning] training-change: the optimizer changes from Adagrad to "
        "Momentum\n"
        "Found 3 changes: 1 silent-reinit, 1 orphaned-state, 1 training-change (1 file pair "
        "compared).\n"
    )


# --- jax-tpu-embedding's and Keras-RS's columns ---------------------------------------------
# The same toy-row idea for the other two columns: a changed row swapped into ``JAX_TABLE`` or
# ``KERAS_TABLE`` reaches every reader -- auto-stacking's optimizer key, 0.2.0's proto, the JAX
# memory model's slots (through the SLOTS view compat and the rules read), Keras-RS's JAX
# conversion, its refusals and TensorFlow's names.

FTRL_JAX = optimizers.jax_class("FTRLOptimizerSpec")
assert FTRL_JAX is not None
# FTRL with its parameters reordered, one added (a boolean), one dropped, and a third slot.
TOY_JAX = dataclasses.replace(
    FTRL_JAX,
    parameters=(
        optimizers.JaxParameter("beta", 0.0),
        optimizers.JaxParameter("learning_rate_power", -0.5),
        optimizers.JaxParameter("toy_flag", 1.0, boolean=True),
        optimizers.JaxParameter("toy_float", 0.25),
    ),
    slots=("accumulator", "linear", "toys"),
)


@pytest.fixture
def toy_jax(monkeypatch: pytest.MonkeyPatch) -> None:
    table = tuple(TOY_JAX if row is FTRL_JAX else row for row in optimizers.JAX_TABLE)
    monkeypatch.setattr(optimizers, "JAX_TABLE", table)


def _jax_table(settings: dict[str, float]) -> Any:
    spec = EmbeddingSpec()
    table = spec.tables.add(name="t", vocabulary_size=8, dim=8)
    table.jax.optimizer.type = "FTRLOptimizerSpec"
    table.jax.optimizer.learning_rate.constant = 0.5
    table.jax.optimizer.settings.update(settings)
    return table


def test_jax_column_reaches_the_optimizer_key_the_proto_and_the_slots(toy_jax: None) -> None:
    from tpuemb_cli.frontends.jax.spec import memory as jax_memory
    from tpuemb_cli.frontends.jax.spec.optimizer_key import optimizer_key
    from tpuemb_cli.frontends.jax.spec.optimizer_proto import optimizer_proto

    settings = {
        "beta": 2.0,
        "learning_rate_power": -1.0,
        "toy_flag": 1.0,
        "l1_regularization_strength": 3.0,
    }
    table = _jax_table(settings)
    # __hash__'s order is the row's; a parameter the row drops is no longer compared.
    assert optimizer_key(table) == (0.5, 2.0, -1.0, 1.0, None)
    proto = optimizer_proto(table.jax.optimizer)
    # (A map's iteration order is protobuf's, seeded per process: compare the entries.)
    assert dict(proto.float_params) == {"beta": 2.0, "learning_rate_power": -1.0}
    assert dict(proto.bool_params) == {"toy_flag": True}
    assert jax_memory.SLOTS["FTRL"] == ("accumulator", "linear", "toys")
    assert jax_memory.SLOTS.get("CUSTOM", ()) is None


def test_jax_column_reaches_keras_rs_jax_conversion(toy_jax: None) -> None:
    from tpuemb_cli.frontends.keras.model import optimizers as keras_optimizers

    values = keras_optimizers.settings("Ftrl", {"beta": 0.5})
    kind, found = keras_optimizers.jax_spec("Ftrl", False, values)
    # The spec's parameters: Keras's value where Keras has the option, else the row's default.
    assert kind == "FTRLOptimizerSpec"
    assert found == {"beta": 0.5, "learning_rate_power": -0.5, "toy_flag": 1.0, "toy_float": 0.25}


FTRL_KERAS = optimizers.keras_class("Ftrl")
assert FTRL_KERAS is not None
# Keras's Ftrl named Toy, with another default and another option refused.
TOY_KERAS = dataclasses.replace(
    FTRL_KERAS,
    keras_class="Toy",
    converted_as="Toy",
    defaults={**FTRL_KERAS.defaults, "beta": 0.125},
    required={"beta": 0.125},
)


@pytest.fixture
def toy_keras(monkeypatch: pytest.MonkeyPatch) -> None:
    table = tuple(TOY_KERAS if row is FTRL_KERAS else row for row in optimizers.KERAS_TABLE)
    monkeypatch.setattr(optimizers, "KERAS_TABLE", table)


def test_keras_column_reaches_defaults_refusals_names_and_conversions(toy_keras: None) -> None:
    from tpuemb_cli.frontends.keras.model import optimizers as keras_optimizers

    assert keras_optimizers.class_of("toy", by_name=True) == "Toy"
    assert keras_optimizers.class_of("ftrl", by_name=True) == "ftrl"  # no such class any more
    assert "toy" in keras_optimizers.tf_names() and "ftrl" not in keras_optimizers.tf_names()
    values = keras_optimizers.settings("Toy", {})
    assert values["beta"] == 0.125 and values["learning_rate_power"] == -0.5
    assert keras_optimizers.refusals("jax", "Toy", False, values) == []
    refused = keras_optimizers.refusals("jax", "Toy", False, {**values, "beta": 1.0})
    assert [each.option for each in refused] == ["beta"]
    kind, found = keras_optimizers.jax_spec("Toy", False, values)
    assert kind == "FTRLOptimizerSpec" and found["beta"] == 0.125
    # The unsupported-class message names the classes it knows as the library does; Ftrl is gone.
    assert keras_optimizers.refusals("jax", "Ftrl", False, values)[-1].option == ""
