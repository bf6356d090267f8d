"""Issue 36's EmbeddingSpecProto verdicts against jax-tpu-embedding itself, on CPU (`make test-jax`;
skipped without the library): what the library does with one feature name twice, stacks of one
name, a `max_ids_per_partition` past 32 bits or a COO buffer of INT_MAX or more, NaN and infinite
optimizer settings, a value its own generated module cannot parse, and one stack of many tables
(no false positive from TE685/TE686's one-pass comparison)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from google.protobuf import text_format  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec, table_stacking  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.proto import embedding_spec_pb2 as theirs_pb2  # noqa: E402

from tests.test_jax_oracle import _create_proto, _initializer  # noqa: E402
from tpuemb_cli.api import lint_file  # noqa: E402
from tpuemb_cli.frontends.jax.spec.memory import INT_MAX  # noqa: E402
from tpuemb_cli.jax import lint_jax  # noqa: E402

DEVICES, CORES = 2, 4


def _table(name: str, optimizer: Any = None, **limits: int) -> Any:
    return embedding_spec.TableSpec(
        name=name,
        vocabulary_size=64,
        embedding_dim=8,
        initializer=_initializer,
        optimizer=optimizer or embedding_spec.SGDOptimizerSpec(learning_rate=0.1),
        combiner="sum",
        max_ids_per_partition=limits.get("max_ids", 256),
        max_unique_ids_per_partition=limits.get("max_unique", 256),
    )


def _feature(name: str, table: Any) -> Any:
    batch = 16 * DEVICES * CORES
    return embedding_spec.FeatureSpec(
        name=name, table_spec=table, input_shape=[batch, 1], output_shape=[batch, 8]
    )


def _written(tmp_path: Path, proto: Any) -> Path:
    path = tmp_path / "stacked.pbtxt"
    path.write_text(text_format.MessageToString(proto))
    return path


def _codes(path: Path) -> list[str]:
    return sorted(finding.rule for finding in lint_file(path, isolated=True))


def test_one_feature_name_twice(tmp_path: Path) -> None:
    table = _table("t")
    features = [_feature("f", table), _feature("f", table)]
    jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
    proto = _create_proto(features, DEVICES, CORES)
    # The library writes both features into its proto, and refuses them at training.
    assert [f.feature_name for f in proto.stacked_table_specs[0].table_specs[0].feature_specs] == [
        "f",
        "f",
    ]
    with pytest.raises(ValueError, match="Feature spec f is already defined"):
        jte.get_table_specs(features)
    # TE686 too: the library keys a feature's row offset by name, so the second "f" got the
    # first's offset, over its samples -- the proto it wrote says so.
    assert _codes(_written(tmp_path, proto)) == ["TE686", "TE695"]
    # Named apart, the library's proto passes.
    table = _table("t")
    features = [_feature("f", table), _feature("g", table)]
    jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
    assert _codes(_written(tmp_path, _create_proto(features, DEVICES, CORES))) == []


def test_two_stacks_named_nothing_are_one_variable(tmp_path: Path) -> None:
    import jax.numpy as jnp

    features = [_feature("fa", _table("a")), _feature("fb", _table("b"))]
    jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
    proto = _create_proto(features, DEVICES, CORES)
    assert _codes(_written(tmp_path, proto)) == []
    for stack in proto.stacked_table_specs:
        stack.stack_name = ""
    # The library keys the stacked variables by stack name: two stacks, one variable.
    stacked = table_stacking.stack_and_shard_feature_tables(
        {"a": jnp.ones((64, 8)), "b": jnp.zeros((64, 8))}, proto
    )
    assert list(stacked) == [""]
    assert _codes(_written(tmp_path, proto)) == ["TE697"]


@pytest.mark.parametrize("max_ids", [2**31, 2**31 + 8, 2**40])
def test_a_limit_past_32_bits(tmp_path: Path, max_ids: int) -> None:
    with pytest.raises(TypeError, match="incompatible function arguments"):
        jte.compute_theoretical_max_coo_buffer_size(max_ids, DEVICES, CORES)
    features = [_feature("f", _table("t"))]
    jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
    proto = _create_proto(features, DEVICES, CORES)
    proto.stacked_table_specs[0].max_ids_per_partition = max_ids
    path = _written(tmp_path, proto)
    assert _codes(path) == ["TE671"]
    # The same verdict whatever the chip (--tpu adds nothing to it).
    for chip in ("v5p-8", "v6e-8"):
        found = lint_file(path, isolated=True, tpu=chip)
        assert "TE671" in {finding.rule for finding in found}


def test_a_coo_buffer_of_int_max_or_more(tmp_path: Path) -> None:
    # The library's maximum for this stack over its SparseCores a device: the buffer with one
    # SparseCore a device, the fewest there are (the library takes 2 or 4).
    cores = DEVICES * CORES
    for max_ids, refused in ((INT_MAX // cores // 8 * 8, False), (2**31 // cores, True)):
        least = jte.compute_theoretical_max_coo_buffer_size(max_ids, DEVICES, CORES) // CORES
        assert (least >= INT_MAX) is refused
        features = [_feature("f", _table("t"))]
        jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
        proto = _create_proto(features, DEVICES, CORES)
        proto.stacked_table_specs[0].max_ids_per_partition = max_ids
        proto.stacked_table_specs[0].max_unique_ids_per_partition = 256
        codes = _codes(_written(tmp_path, proto))
        assert ("TE671" in codes) is refused, (max_ids, codes)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_optimizer_settings(value: float) -> None:
    made = [
        embedding_spec.SGDOptimizerSpec(learning_rate=value),
        embedding_spec.AdagradOptimizerSpec(learning_rate=0.1, initial_accumulator_value=value),
        embedding_spec.AdamOptimizerSpec(learning_rate=0.1, epsilon=value),
        embedding_spec.FTRLOptimizerSpec(learning_rate=0.1, l1_regularization_strength=value),
    ]
    for index, optimizer in enumerate(made):
        # The library takes it, and hands it on to the update (or the slot's initializer).
        held = [float(h) for h in optimizer.get_hyperparameters()]
        held += [v for v in vars(optimizer).values() if isinstance(v, float)]
        assert any(not math.isfinite(h) for h in held), optimizer
        features = [_feature(f"f{index}", _table(f"t{index}", optimizer))]
        found = lint_jax(features, global_device_count=DEVICES, num_sc_per_device=CORES)
        assert [finding.rule for finding in found] == ["TE672"], (optimizer, found)


def test_a_value_the_librarys_module_cannot_parse_is_its_load_problem_alone(
    tmp_path: Path,
) -> None:
    features = [_feature("fa", _table("a")), _feature("fb", _table("b"))]
    table_stacking.stack_tables(features, ["a", "b"], DEVICES, CORES)
    jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
    text = text_format.MessageToString(_create_proto(features, DEVICES, CORES))
    for field in ("stack_vocab_size", "padded_vocab_size", "output_shape", "row_offset_in_shard"):
        old = next(line for line in text.splitlines() if line.strip().startswith(f"{field}:"))
        broken = text.replace(old, f"{old.split(':')[0]}: {2**63}", 1)
        with pytest.raises(text_format.ParseError, match=r"out of range|Couldn't parse"):
            text_format.Parse(broken, theirs_pb2.EmbeddingSpecProto())
        path = tmp_path / "stacked.pbtxt"
        path.write_text(broken)
        assert _codes(path) == ["TE005"], field


def test_one_stack_of_many_tables_reads_clean(tmp_path: Path) -> None:
    tables = [_table(f"t{index}") for index in range(300)]
    features = [_feature(f"f{index}", table) for index, table in enumerate(tables)]
    table_stacking.stack_tables(features, [t.name for t in tables], DEVICES, CORES)
    jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
    proto = _create_proto(features, DEVICES, CORES)
    assert len(proto.stacked_table_specs) == 1
    path = _written(tmp_path, proto)
    assert [c for c in _codes(path) if c != "TE689"] == []
    # Two tables over each other, and two features: caught where the library put the second.
    stack = proto.stacked_table_specs[0]
    stack.table_specs[200].row_offset_in_shard = stack.table_specs[100].row_offset_in_shard
    stack.table_specs[250].feature_specs[0].row_offset = 0
    found = [f for f in lint_file(_written(tmp_path, proto), isolated=True) if f.rule != "TE689"]
    assert sorted((f.rule, f.path[-2:]) for f in found) == [
        ("TE685", (200, "row_offset_in_shard")),
        ("TE686", (0, "col_offset")),  # table 200's feature: its table moved
        ("TE686", (0, "row_offset")),
    ], found
