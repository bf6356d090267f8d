from tests.helpers import SPEC, lint, located, of, optimizer


def test_misspelled_mode() -> None:
    (finding,) = of(lint("mode: TRAINNG\n"), "TE004")
    assert (finding.field, finding.position.column if finding.position else 0) == ("mode", 7)
    assert finding.message == (
        "`TRAINNG` is not a value of TPUEmbeddingConfiguration.Mode; did you mean `TRAINING`?"
    )
    assert finding.fix == "use `TRAINING`"


def test_json_enum_name() -> None:
    findings = lint('{"mode": "TRAINNG"}', fmt="json")
    (finding,) = of(findings, "TE004")
    assert finding.field == "mode" and finding.position is not None
    assert (finding.position.line, finding.position.column) == (1, 2)
    assert finding.message == (
        '"TRAINNG" is not a value of TPUEmbeddingConfiguration.Mode; did you mean `TRAINING`?'
    )


def test_case_and_nearby_words_suggest_the_value() -> None:
    findings = of(lint("mode: training\n"), "TE004")
    assert [f.message for f in findings] == [
        "`training` is not a value of TPUEmbeddingConfiguration.Mode; did you mean `TRAINING`?"
    ]
    text = optimizer("adagrad {}\n    gradient_accumulation_status: ENABLE")
    (finding,) = of(lint(text), "TE004")
    assert finding.message == (
        "`ENABLE` is not a value of GradientAccumulationStatus.Status; did you mean `ENABLED`?"
    )


def test_nothing_close_lists_the_values() -> None:
    (finding,) = of(lint("mode: EVAL\n"), "TE004")
    assert finding.message == "`EVAL` is not a value of TPUEmbeddingConfiguration.Mode"
    assert finding.fix == "use one of: UNSPECIFIED, INFERENCE, TRAINING, BACKWARD_PASS_ONLY"


def test_near_miss_unknown_number_is_another_rule() -> None:
    assert located("mode: 7\n", "TE004") == []
    assert located("mode: 7\n", "TE308") == [("mode", 1, 1)]
    assert of(lint(SPEC, fmt="yaml"), "TE004") == []
