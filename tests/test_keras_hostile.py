"""Hostile Keras models: whatever a config.json or an archive holds, tpuemb reads it without a
traceback and reports it without an internal error (a hypothesis sweep: `make test-slow`)."""

from __future__ import annotations

import contextlib
import io
import json
import zipfile
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tpuemb_cli.engine import Engine
from tpuemb_cli.frontends.keras.load.archive import read_archive
from tpuemb_cli.load import Document, load_input

SWEEP = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
# Dimensions at the edges of what a field holds: int64's, and Python's unbounded integers.
EDGES = st.sampled_from([0, 1, -1, 2**31, 2**63 - 1, 2**63, 2**70, -(2**63) - 1])
DIMENSION = st.one_of(st.none(), EDGES, st.integers(-(2**70), 2**70))
SHAPES = st.one_of(VALUES, st.lists(DIMENSION, max_size=3))
FEATURE = st.fixed_dictionaries(
    {"name": st.text(max_size=3), "table": st.one_of(st.integers(-1, 3), EDGES, VALUES)},
    optional={"input_shape": SHAPES, "output_shape": SHAPES},
)
KEYS = st.sampled_from(
    [
        "name",
        "table",
        "input_shape",
        "output_shape",
        "vocabulary_size",
        "embedding_dim",
        "optimizer",
        "placement",
        "combiner",
        "class_name",
        "config",
        "learning_rate",
        "clipnorm",
    ]
)


def _table() -> Any:
    return st.dictionaries(KEYS, VALUES, max_size=8)


def _layer(tables: Any, features: Any, stacking: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"name": "e", "tables": tables, "feature_configs": features}
    if stacking is not None:
        config["table_stacking"] = stacking
    return {"class_name": "DistributedEmbedding", "module": "keras_rs", "config": config}


def _lint(data: bytes, name: str) -> None:
    loaded = load_input(data, name)
    if isinstance(loaded, Document):
        findings = Engine().lint(loaded)
        assert not [f for f in findings if f.rule == "TE010"], findings


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@SWEEP
@given(
    tables=st.one_of(
        VALUES,
        st.lists(_table(), max_size=4),
        st.lists(
            st.fixed_dictionaries(
                {"name": st.text(max_size=2)},
                optional={
                    "vocabulary_size": st.one_of(SCALARS, EDGES),
                    "embedding_dim": st.one_of(SCALARS, EDGES),
                    "placement": st.sampled_from(["auto", "sparsecore", "default_device", "x"]),
                    "optimizer": st.one_of(
                        st.sampled_from(["sgd", "adam", "adamw", "rmsprop", "ftrl", "?"]),
                        st.fixed_dictionaries(
                            {"class_name": st.sampled_from(["Adagrad", "Adam", "SGD", "Lion"])},
                            optional={"config": st.dictionaries(KEYS, SCALARS, max_size=4)},
                        ),
                    ),
                },
            ),
            min_size=1,
            max_size=4,
        ),
    ),
    features=st.one_of(
        VALUES,
        st.dictionaries(st.text(max_size=4), st.dictionaries(KEYS, VALUES, max_size=6), max_size=4),
        st.dictionaries(st.text(max_size=4), FEATURE, max_size=4),
        st.lists(FEATURE, max_size=4),
    ),
    stacking=st.one_of(st.none(), VALUES),
)
def test_any_layer_configuration_is_read_and_linted(
    tables: Any, features: Any, stacking: Any
) -> None:
    _read_and_lint(tables, features, stacking)


def _read_and_lint(tables: Any, features: Any, stacking: Any) -> None:
    model = {
        "class_name": "Functional",
        "module": "keras",
        "config": {"name": "m", "layers": [_layer(tables, features, stacking)]},
    }
    text = json.dumps(model)
    _lint(text.encode(), "config.json")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("config.json", text)
    for backend in ("jax", "tensorflow"):
        loaded = load_input(buffer.getvalue(), "m.keras")
        assert isinstance(loaded, Document)
        message: Any = loaded.message
        if message is not None:
            message.target.backend = backend
            message.target.global_device_count = 4
            message.target.num_sc_per_device = 4
            findings = Engine().lint(loaded)
            assert not [f for f in findings if f.rule == "TE010"], findings
            _explain_and_diff(message)


def _explain_and_diff(model: Any) -> None:
    """explain, explain --memory (text and JSON) and diff of the model with itself: each runs
    to its end (a layer the library refuses is said so, not raised)."""
    from tpuemb_cli.frontends.keras.compat.weights import NotCompared, weight_changes
    from tpuemb_cli.frontends.keras.spec.plan import plan_model, topology_of
    from tpuemb_cli.frontends.keras.views.model import (
        explain_keras,
        explain_keras_memory,
        keras_memory_json,
    )
    from tpuemb_cli.model.chips import BY_NAME

    plans, topology = plan_model(model), topology_of(model)
    explain_keras("m.keras", plans, topology)
    explain_keras_memory("m.keras", plans, topology, BY_NAME["v5p"])
    json.loads(keras_memory_json("m.keras", plans, topology, BY_NAME["v5p"]))
    with contextlib.suppress(NotCompared):
        weight_changes(model, model, topology)


TABLE = st.fixed_dictionaries(
    {"name": st.text(max_size=2)},
    optional={
        "vocabulary_size": st.one_of(SCALARS, EDGES),
        "embedding_dim": st.one_of(SCALARS, EDGES),
        "max_ids_per_partition": st.one_of(SCALARS, EDGES),
        "placement": st.sampled_from(["auto", "sparsecore", "default_device", "x"]),
        "optimizer": st.one_of(
            st.sampled_from(["sgd", "adam", "adamw", "rmsprop", "ftrl", "?"]),
            st.fixed_dictionaries(
                {"class_name": st.sampled_from(["Adagrad", "Adam", "AdamW", "SGD", "Lion"])},
                optional={"config": st.dictionaries(KEYS, st.one_of(SCALARS, EDGES), max_size=4)},
            ),
        ),
    },
)


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@SWEEP
@given(
    tables=st.lists(TABLE, min_size=1, max_size=4),
    features=st.one_of(
        st.lists(FEATURE, min_size=1, max_size=4),
        st.dictionaries(st.text(max_size=3), FEATURE, min_size=1, max_size=4),
    ),
    stacking=st.one_of(st.none(), st.just("auto"), st.lists(st.text(max_size=2), max_size=3)),
)
def test_a_layer_of_hostile_values_is_read_and_linted(
    tables: Any, features: Any, stacking: Any
) -> None:
    _read_and_lint(tables, features, stacking)


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@SWEEP
@given(st.binary(max_size=400))
def test_any_bytes_under_a_keras_name(data: bytes) -> None:
    read_archive(b"PK\x03\x04" + data)
    _lint(b"PK\x03\x04" + data, "m.keras")
    _lint(data, "m.keras")
