"""jax-invalid-stacking on specs made from jax-tpu-embedding's objects (stand-ins here;
tests/test_jax_compile_oracle.py has the library raise on its own)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from google.protobuf import text_format

from tests.jax_objects import FeatureSpec, TableSpec, codes
from tpuemb_cli.engine import Engine
from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError
from tpuemb_cli.jax import compile_jax, lint_jax, spec_from_jax
from tpuemb_cli.load import Document
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec


def _found(text: str) -> list[tuple[str, tuple[str | int, ...], str]]:
    spec = text_format.Parse(text, EmbeddingSpec())
    findings = Engine().lint(Document("<spec>", "text", "EmbeddingSpec", spec, None))
    return [(f.rule, f.path, f.message) for f in findings if f.rule in ("TE696", "TE699")]


TABLES = """
tables { name: "a" vocabulary_size: 1000 dim: 16 combiner: "sum" }
tables { name: "b" vocabulary_size: 1000 dim: 16 combiner: "sum" }
features { name: "fa" table: "a" input_shape: [128, 1] output_shape: [128, 16] }
features { name: "fb" table: "b" input_shape: [128, 1] output_shape: [128, 16] }
"""


def test_explicit_stacks_with_auto_stacking() -> None:
    a, b = TableSpec("a"), TableSpec("b")
    features = [FeatureSpec("fa", a), FeatureSpec("fb", b)]
    findings = lint_jax(
        features,
        global_device_count=8,
        num_sc_per_device=4,
        stacks={"ab": ["a", "b"]},
        auto_stack=True,
    )
    assert [(f.rule, f.path) for f in findings] == [
        ("TE696", ("tables", 0, "jax", "stack")),
        ("TE696", ("tables", 1, "jax", "stack")),
    ]
    assert findings[0].message == (
        'table "a" is put in stack "ab" and the tables are auto-stacked too: stack_tables raises '
        "ValueError (the table is already stacked)"
    )
    assert codes(features, auto_stack=True) == []
    assert codes(features, stacks={"ab": ["a", "b"]}) == []


def test_a_stacked_table_no_feature_uses() -> None:
    text = (
        "jax { global_device_count: 8 num_sc_per_device: 4 }"
        + TABLES.replace('combiner: "sum" }', 'combiner: "sum" jax { stack: "ab" } }')
        + 'tables { name: "c" vocabulary_size: 10 dim: 16 combiner: "sum" jax { stack: "ab" } }'
    )
    assert _found(text) == [
        (
            "TE696",
            ("tables", 2, "jax", "stack"),
            'table "c" of stack "ab" is looked up by no feature: stack_tables finds no such '
            "table among the features (KeyError)",
        )
    ]


def test_no_tpus_sparsecores_and_no_devices() -> None:
    text = "jax { global_device_count: 0 num_sc_per_device: 3 }" + TABLES
    assert [(rule, path) for rule, path, _ in _found(text)] == [
        ("TE696", ("jax", "global_device_count")),
        ("TE696", ("jax", "num_sc_per_device")),
    ]


def test_two_tables_of_one_name_and_a_feature_without_table() -> None:
    text = "jax { global_device_count: 8 num_sc_per_device: 4 }" + TABLES.replace(
        'name: "b" vocabulary_size', 'name: "a" vocabulary_size'
    ).replace('table: "b"', 'table: "nope"')
    # The unknown table is jax-unknown-table's (TE699), not reported twice.
    assert _found(text) == [
        (
            "TE696",
            ("tables", 1, "name"),
            'table 1 is named "a", as table 0: the library keys tables by name, and lays out '
            "only one of them (its features looking up the other's rows)",
        ),
        (
            "TE699",
            ("features", 1, "table"),
            'feature "fb" uses table "nope", which the spec does not define',
        ),
    ]


def test_a_table_alone_named_as_a_stack() -> None:
    a, b, c = TableSpec("a"), TableSpec("b"), TableSpec("c")
    features = [FeatureSpec("fa", a), FeatureSpec("fb", b), FeatureSpec("fc", c)]
    spec = spec_from_jax(
        features, global_device_count=8, num_sc_per_device=4, stacks={"c": ["a", "b"]}
    )
    document = Document("<spec>", "binary", "EmbeddingSpec", spec, None)
    assert [(f.rule, f.path) for f in Engine().lint(document)] == [("TE696", ("tables", 2, "name"))]
    assert codes(features, stacks={"ab": ["a", "b"]}) == []


@pytest.mark.parametrize("alone_first", [True, False])
def test_two_auto_stacks_of_one_name(alone_first: bool) -> None:
    # Widths 16 and 64 are two groups; "a_b" alone and the stack of "a" and "b" share a name. The
    # library refuses the second only when the first is not table "a_b" alone (the oracle test
    # in tests/test_jax_front_oracle.py builds both orders).
    ab, a, b = TableSpec("a_b", embedding_dim=64), TableSpec("a"), TableSpec("b")
    pair = [FeatureSpec("f2", a), FeatureSpec("f3", b)]
    alone = [FeatureSpec("f1", ab, output_shape=(128, 64))]
    features = alone + pair if alone_first else pair + alone
    (finding,) = lint_jax(features, global_device_count=8, num_sc_per_device=4, auto_stack=True)
    assert finding.rule == "TE696"
    if alone_first:
        assert finding.message == (
            "auto-stacking names two stacks \"a_b\" (tables ['a_b'], then ['a', 'b']): the first "
            'is table "a_b" alone, which stack_tables does not count as stacked: auto_stack_tables '
            'accepts both, and create_proto_from_feature_specs merges them into one stack "a_b" of '
            "the first one's size, the later tables' rows outside it"
        )
    else:
        assert finding.message == (
            "auto-stacking names two stacks \"a_b\" (tables ['a', 'b'], then ['a_b']): "
            "auto_stack_tables raises ValueError (\"Cannot use stack name a_b since it's already "
            'used.")'
        )


def test_an_output_shape_without_samples() -> None:
    features = [FeatureSpec("f", TableSpec("a"), output_shape=(16,))]
    findings = lint_jax(features, global_device_count=1, num_sc_per_device=2)
    assert [(f.rule, f.path, f.message) for f in findings] == [
        (
            "TE696",
            ("features", 0, "output_shape"),
            'feature "f" has an output shape of 1 dimension: the library counts its samples as '
            "the product of all but the last, and prepare_feature_specs_for_training or "
            "create_proto_from_feature_specs raises TypeError",
        )
    ]


def test_an_output_shape_with_an_unknown_dimension() -> None:
    # The library's prepare_feature_specs_for_training raises TypeError on (None, 16) (jax-tpu-
    # embedding 0.1.0 on CPU; Keras-RS hands it a FeatureConfig's shapes as they are).
    features = [FeatureSpec("f", TableSpec("a"), output_shape=(None, 16))]
    findings = lint_jax(features, global_device_count=1, num_sc_per_device=2)
    assert [(f.rule, f.path, f.message) for f in findings] == [
        (
            "TE696",
            ("features", 0, "output_shape"),
            'feature "f" has no output shape with every dimension known: the library counts its '
            "samples as the product of all but the last, and prepare_feature_specs_for_training "
            "or create_proto_from_feature_specs raises TypeError",
        )
    ]


def _features() -> list[FeatureSpec]:
    return [FeatureSpec("fa", TableSpec("a")), FeatureSpec("fb", TableSpec("b"))]


def test_a_stack_without_a_name_takes_the_librarys() -> None:
    # stack_tables(..., stack_name=None or "") names the stack `_get_stack_name(table_names)`.
    for name in (None, ""):
        spec = spec_from_jax(
            _features(), global_device_count=8, num_sc_per_device=4, stacks={name: ["a", "b"]}
        )
        placed = [(t.jax.stack, t.jax.stack_position) for t in spec.tables]
        assert placed == [("a_b", 0), ("a_b", 1)]
        assert not spec.jax.stack_calls
        compiled = compile_jax(
            _features(), global_device_count=8, num_sc_per_device=4, stacks={name: ["a", "b"]}
        )
        assert [s.stack_name for s in compiled.stacked_table_specs] == ["a_b"]


REFUSED: list[tuple[dict[str | None, list[str]], tuple[str | int, ...], str]] = [
    (
        {"s": ["a", "nope"]},
        ("jax", "stack_calls", 0, "tables", 1),
        'stack "s" is asked for with table "nope", which no feature looks up: stack_tables '
        "raises KeyError ('nope')",
    ),
    (
        {"s": ["a", "a", "b"]},
        ("jax", "stack_calls", 0, "tables", 1),
        'stack "s" is asked for with table "a" twice: stack_tables raises ValueError ("Table a '
        'is repeated in group s.")',
    ),
    (
        {"s": []},
        ("jax", "stack_calls", 0, "tables"),
        'stack "s" is asked for with no table: stack_tables raises ValueError ("max() arg is an '
        'empty sequence")',
    ),
    (
        {"s": ["a", "b"], "t": ["a"]},
        ("jax", "stack_calls", 0, "tables", 0),
        'stack "t" is asked for with table "a", which stack "s" holds: stack_tables raises '
        'ValueError ("Table a is already stacked in group s.")',
    ),
]


def test_stack_calls_the_library_refuses() -> None:
    for stacks, path, message in REFUSED:
        arguments: dict[str, Any] = {"global_device_count": 8, "num_sc_per_device": 4}
        spec = spec_from_jax(_features(), stacks=stacks, **arguments)  # records, never raises
        assert len(spec.jax.stack_calls) == 1, stacks
        findings = lint_jax(_features(), stacks=stacks, **arguments)
        assert [(f.rule, f.path, f.message) for f in findings] == [("TE696", path, message)]
        with pytest.raises(JaxStackingError, match=re.escape(message)):
            compile_jax(_features(), stacks=stacks, **arguments)


def test_stack_calls_written_by_hand() -> None:
    text = "jax { global_device_count: 8 num_sc_per_device: 4 " + (
        'stack_calls { name: "s" tables: ["a", "b"] } stack_calls { name: "t" tables: "b" } '
        'stack_calls { name: "u" tables: "c" } }'
        + TABLES
        + 'tables { name: "c" vocabulary_size: 10 dim: 16 combiner: "sum" }'
    )
    assert [(rule, path) for rule, path, _ in _found(text)] == [
        ("TE696", ("jax", "stack_calls", 1, "tables", 0)),
        ("TE696", ("jax", "stack_calls", 2, "tables", 0)),
    ]
