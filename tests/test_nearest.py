"""Nearest-name suggestions: the one function every unknown name goes through, and the table of
the names TensorFlow's Python API and Keras give the fields."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

from tests.helpers import lint, of
from tpuemb_cli.load.aliases import ALIASES
from tpuemb_cli.model import schema
from tpuemb_cli.model.nearest import nearest, words
from tpuemb_cli.pb.spec.embedding_spec_pb2 import Optimizer
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
from tpuemb_cli.spec.compiler import set_optimization_parameters


def test_words_is_one_spelling_for_every_style() -> None:
    assert [
        words(name)
        for name in (
            "vocabularySize",
            "VocabularySize",
            "vocabulary-size",
            "VOCABULARY_SIZE",
            "SGD",
            "l1RegularizationStrength",
            "HTTPServer",
            "beta1",
        )
    ] == [
        "vocabulary_size",
        "vocabulary_size",
        "vocabulary_size",
        "vocabulary_size",
        "sgd",
        "l1_regularization_strength",
        "http_server",
        "beta1",
    ]


def test_nearest() -> None:
    fields = ["learning_rate", "clipping_limits", "stochastic_gradient_descent", "momentum"]
    assert nearest("learning_rte", fields) == "learning_rate"
    assert nearest("learningRate", fields) == "learning_rate"  # as spelled in ``known``
    assert nearest("sgd", fields) is None  # far by spelling...
    assert nearest("sgd", fields, {"sgd": "stochastic_gradient_descent"}) == (
        "stochastic_gradient_descent"  # ...but a known other name
    )
    # An alias to a name that is not there suggests nothing.
    assert nearest("sgd", ["momentum"], {"sgd": "stochastic_gradient_descent"}) is None
    assert nearest("bogus", fields) is None
    # Two names equally close: no guess.
    assert nearest("TE40", ["TE401", "TE402"]) is None
    assert nearest("TE40", ["TE401", "TE402"], cutoff=0.5) is None
    assert nearest("TRAIN", ["TRAINING", "INFERENCE"], cutoff=0.6) == "TRAINING"


def _descriptor(full_name: str) -> Any:
    for type_name in ("TPUEmbeddingConfiguration", "EmbeddingSpec"):
        schema.resolve(type_name)
    pool = schema.resolve("EmbeddingSpec").DESCRIPTOR.file.pool
    return pool.FindMessageTypeByName(full_name)


@pytest.mark.parametrize("message", sorted(ALIASES))
def test_every_alias_is_of_a_real_field_and_is_no_name_the_message_takes(message: str) -> None:
    descriptor = _descriptor(message)
    taken = {f.name for f in descriptor.fields} | {f.json_name for f in descriptor.fields}
    for written, (field, _) in ALIASES[message].items():
        assert field in descriptor.fields_by_name, (message, field)
        assert written not in taken, (message, written)
        assert words(written) == written, (message, written)


# The spec's optimizer messages and the config's they compile to.
_PAIRS = (
    ("tpuemb.tpu.OptimizationParameters", "tpuemb.spec.Optimizer", None),
    ("tpuemb.tpu.AdamParameters", "tpuemb.spec.Adam", "adam"),
    ("tpuemb.tpu.FtrlParameters", "tpuemb.spec.FTRL", "ftrl"),
)


_ON_BY_DEFAULT = ("use_gradient_accumulation", "lazy_adam", "sum_inside_sqrt")


def _compiled(algorithm: str | None, field: str | None) -> Any:
    """The OptimizationParameters (or its algorithm's message) a spec optimizer compiles to, with
    the spec's ``field`` set away from its default."""
    spec = Optimizer()
    target: Any = getattr(spec, algorithm) if algorithm else spec
    if algorithm:
        target.SetInParent()
    if field is not None:
        kind = target.DESCRIPTOR.fields_by_name[field]
        if kind.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
            # Away from TensorFlow's defaults: these three are on unless turned off.
            setattr(target, field, field not in _ON_BY_DEFAULT)
        elif kind.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            getattr(target, field).scalar = 3.0  # clipvalue
        else:
            setattr(target, field, 0.375)
    params = OptimizationParameters()
    set_optimization_parameters(spec, params)
    return getattr(params, algorithm) if algorithm else params


@pytest.mark.parametrize(("config", "spec", "algorithm"), _PAIRS)
def test_spec_and_config_aliases_are_what_the_spec_compiler_maps(
    config: str, spec: str, algorithm: str | None
) -> None:
    # Each spec field that the table names a config field for compiles to that field (the
    # compiler is TensorFlow's _set_optimization_parameters, field for field), both ways.
    pairs = {(field, written) for written, (field, _) in ALIASES[config].items()}
    pairs |= {(written, field) for written, (field, _) in ALIASES[spec].items()}
    spec_fields = _descriptor(spec).fields_by_name
    checked = 0
    for config_field, spec_field in sorted(pairs):
        if spec_field not in spec_fields or spec_field == "sgd" or spec_field == "learning_rate":
            continue  # not a spec field; an algorithm; learning rates are the table's
        base, changed = _compiled(algorithm, None), _compiled(algorithm, spec_field)
        differ = {
            f.name
            for f in base.DESCRIPTOR.fields
            if getattr(base, f.name) != getattr(changed, f.name)
        }
        assert differ == {config_field}, (spec_field, differ)
        checked += 1
    assert checked >= 3


def test_the_python_api_name_of_every_optimizer_algorithm() -> None:
    # TensorFlow's class names, as people write them, are the config's and the spec's fields.
    text = "table_descriptor { optimization_parameters { %s {} } }\n"
    for written, field in (
        ("SGD", "stochastic_gradient_descent"),
        ("Adagrad", "adagrad"),
        ("AdagradMomentum", "adagrad_momentum"),
        ("FTRL", "ftrl"),
        ("Adam", "adam"),
    ):
        (finding,) = of(lint(text % written), "TE002")
        assert finding.message.endswith(f"; did you mean `{field}`?")
