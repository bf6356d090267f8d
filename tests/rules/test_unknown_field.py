from pathlib import Path

from click.testing import CliRunner

from tests.helpers import CLEAN, OPTIMS, SPEC, lint, located, of, optimizer
from tpuemb_cli.cli import main
from tpuemb_cli.load import Skipped, load_input


def test_misspelled_field_suggests_the_real_name() -> None:
    text = 'table_descriptor {\n  name: "video"\n  vocabulary_sise: 1000\n}\n'
    assert located(text, "TE002") == [("table_descriptor[0].vocabulary_sise", 3, 3)]
    (finding,) = of(lint(text), "TE002")
    assert finding.message == (
        "TableDescriptor has no field `vocabulary_sise`; did you mean `vocabulary_size`?"
    )
    assert finding.fix == "use `vocabulary_size`"


def test_what_tensorflows_python_api_calls_a_field_suggests_the_protos_name() -> None:
    # `sgd` is far from `stochastic_gradient_descent` by spelling, but it is what TensorFlow's
    # SGD class sets; `lr` is Keras's name; `learning_rte` is a typo.
    text = optimizer("sgd {}\n    lr: 0.1\n    learning_rte { constant: 0.1 }")
    findings = of(lint(text), "TE002")
    assert [(f.field, f.position.line, f.position.column) for f in findings if f.position] == [
        ("table_descriptor[0].optimization_parameters.sgd", 6, 5),
        ("table_descriptor[0].optimization_parameters.lr", 7, 5),
        ("table_descriptor[0].optimization_parameters.learning_rte", 8, 5),
    ]
    assert [(f.message, f.fix) for f in findings] == [
        (
            "OptimizationParameters has no field `sgd`; did you mean "
            "`stochastic_gradient_descent`?",
            "use `stochastic_gradient_descent`",
        ),
        (
            "OptimizationParameters has no field `lr`; did you mean `learning_rate`?",
            "use `learning_rate` (its `constant`)",
        ),
        (
            "OptimizationParameters has no field `learning_rte`; did you mean `learning_rate`?",
            "use `learning_rate`",
        ),
    ]


def test_python_api_argument_names_of_the_optimizers() -> None:
    text = optimizer(
        "adam { beta_1: 0.9 lazy_adam: false }\n"
        "    clip_weight_min: -1\n"
        "    use_gradient_accumulation: true"
    )
    assert [(f.message, f.fix) for f in of(lint(text), "TE002")] == [
        (
            "AdamParameters has no field `beta_1`; did you mean `beta1`?",
            "use `beta1`",
        ),
        (
            "AdamParameters has no field `lazy_adam`; did you mean `use_non_lazy_adam`?",
            "use `use_non_lazy_adam` (the opposite of `lazy_adam`)",
        ),
        (
            "OptimizationParameters has no field `clip_weight_min`; did you mean "
            "`clipping_limits`?",
            "use `clipping_limits` (its `lower`)",
        ),
        (
            "OptimizationParameters has no field `use_gradient_accumulation`; did you mean "
            "`gradient_accumulation_status`?",
            "use `gradient_accumulation_status` (ENABLED or DISABLED)",
        ),
    ]
    ftrl = optimizer("ftrl { l1_regularization_strength: 0.1 learning_rate_power: -0.5 }")
    assert [f.message for f in of(lint(ftrl), "TE002")] == [
        "FtrlParameters has no field `l1_regularization_strength`; did you mean `l1`?",
        "FtrlParameters has no field `learning_rate_power`; did you mean `lr_power`?",
    ]
    table = 'table_descriptor { name: "t" dim: 4 optimizer { adagrad {} } }\n'
    assert [f.message for f in of(lint(table), "TE002")] == [
        "TableDescriptor has no field `dim`; did you mean `dimension`?",
        "TableDescriptor has no field `optimizer`; did you mean `optimization_parameters`?",
    ]


def test_class_names_in_any_case_suggest_the_field() -> None:
    text = optimizer("SGD {}\n    AdagradMomentum {}\n    adagradmomentum {}")
    assert [f.message for f in of(lint(text), "TE002")] == [
        "OptimizationParameters has no field `SGD`; did you mean `stochastic_gradient_descent`?",
        "OptimizationParameters has no field `AdagradMomentum`; did you mean `adagrad_momentum`?",
        "OptimizationParameters has no field `adagradmomentum`; did you mean `adagrad_momentum`?",
    ]


def test_json_suggestions_are_spelled_as_the_user_writes() -> None:
    text = (
        '{"tableDescriptor": [{"name": "t", "vocabularySise": 8, "vocabulary_sise": 8,\n'
        '  "optimizationParameters": {"sgd": {}, "learningRte": {"constant": 0.1}}}]}\n'
    )
    findings = of(lint(text, fmt="json"), "TE002")
    assert [(f.position.line, f.position.column) for f in findings if f.position] == [
        (1, 36),
        (1, 57),
        (2, 30),
        (2, 41),
    ]
    assert [f.message for f in findings] == [
        "TableDescriptor has no field `vocabularySise`; did you mean `vocabularySize`?",
        "TableDescriptor has no field `vocabulary_sise`; did you mean `vocabulary_size`?",
        "OptimizationParameters has no field `sgd`; did you mean `stochastic_gradient_descent`?",
        "OptimizationParameters has no field `learningRte`; did you mean `learningRate`?",
    ]


def test_text_format_suggests_the_declared_name_for_a_json_name() -> None:
    # Text format takes only declared names: `vocabularySize` is no field there.
    (finding,) = of(lint("table_descriptor { vocabularySize: 8 }\n"), "TE002")
    assert finding.message == (
        "TableDescriptor has no field `vocabularySize`; did you mean `vocabulary_size`?"
    )


def test_spec_keys_suggest_the_specs_names() -> None:
    text = SPEC.replace("dim: 16", "dimension: 16").replace(
        "{adagrad: {}, learning_rate: {constant: 0.05}}",
        "{stochastic_gradient_descent: {}, lr: {constant: 0.05}}",
    )
    findings = of(lint(text, fmt="yaml"), "TE002")
    assert [(f.field, f.position.line, f.position.column) for f in findings if f.position] == [
        ("optimizer.stochastic_gradient_descent", 1, 13),
        ("optimizer.lr", 1, 46),
        ("tables[0].dimension", 5, 5),
    ]
    assert [(f.message, f.fix) for f in findings] == [
        ("Optimizer has no field `stochastic_gradient_descent`; did you mean `sgd`?", "use `sgd`"),
        (
            "Optimizer has no field `lr`; did you mean `learning_rate`?",
            "use `learning_rate` (its `constant`)",
        ),
        ("Table has no field `dimension`; did you mean `dim`?", "use `dim`"),
    ]
    adam = SPEC.replace("{adagrad: {}", "{adam: {use_non_lazy_adam: true}")
    (finding,) = of(lint(adam, fmt="yaml"), "TE002")
    assert (finding.message, finding.fix) == (
        "Adam has no field `use_non_lazy_adam`; did you mean `lazy_adam`?",
        "use `lazy_adam` (the opposite of `use_non_lazy_adam`)",
    )


def test_nothing_close_suggests_nothing_but_lists_the_fields() -> None:
    (finding,) = of(lint(optimizer("bogus: 1")), "TE002")
    assert finding.message == "OptimizationParameters has no field `bogus`"
    assert finding.fix.startswith("fields of OptimizationParameters: learning_rate, ")
    # `momentum` is an optimizer of its own, not a misspelt `adagrad_momentum`; in a spec, which
    # has no plain momentum optimizer, it is not close enough to suggest one.
    spec = SPEC.replace("{adagrad: {}", "{momentum: {}")
    (finding,) = of(lint(spec, fmt="yaml"), "TE002")
    assert finding.message == "Optimizer has no field `momentum`"


def test_removed_field_is_named_as_removed() -> None:
    (finding,) = of(lint("mode: TRAINING\noutput_layout {\n  x: 1\n}\n"), "TE002")
    assert (finding.field, finding.position.line if finding.position else 0) == ("output_layout", 2)
    assert "removed from TPUEmbeddingConfiguration" in finding.message


def test_unknown_field_value_is_skipped_and_parsing_goes_on() -> None:
    text = "bogus: [1, 2]\nnum_hosts: 0\n"
    findings = lint(text)
    assert ("TE002", 1) in [(f.rule, f.position.line) for f in findings if f.position]
    assert ("TE502", 2) in [(f.rule, f.position.line) for f in findings if f.position]


def test_binary_read_as_another_type_names_the_type_it_is(tmp_path: Path) -> None:
    # An OptimizationParameters checked as a config parses, with fields a config does not define.
    path = tmp_path / "adam.pb"
    path.write_bytes((OPTIMS / "adam_default.pb").read_bytes())
    result = CliRunner().invoke(
        main, ["check", "--format", "concise", "--type", "TPUEmbeddingConfiguration", str(path)]
    )
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"{path}: TE002 [error] the file has fields that TPUEmbeddingConfiguration does not "
        "define; it parses as OptimizationParameters: pass `--type OptimizationParameters`"
    )
    (first, *_) = load_input(path.read_bytes(), str(path), "TPUEmbeddingConfiguration").problems  # type: ignore[union-attr]
    assert first.fix == "pass `--type OptimizationParameters`"


def test_near_misses() -> None:
    assert located("table_descriptor { vocabulary_size: 1000 }", "TE002") == []
    assert located(CLEAN, "TE002") == []
    # Read as what it is, a binary file gets no note; nor one that is no other type either.
    data = (OPTIMS / "adam_default.pb").read_bytes()
    document = load_input(data, "adam.pb", "OptimizationParameters")
    assert not isinstance(document, Skipped) and list(document.problems) == []
    junk = load_input(b"\x0a\x03abc\x12\x00", "x.pb", "TPUEmbeddingConfiguration")
    assert not isinstance(junk, Skipped) and "unknown-field" not in {p.rule for p in junk.problems}
