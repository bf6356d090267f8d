from tests.helpers import lint, located, of


def test_int32_overflow_text() -> None:
    assert located("num_hosts: 3000000000\n", "TE005") == [("num_hosts", 1, 12)]


def test_int32_overflow_json() -> None:
    (finding,) = of(lint('{\n  "numHosts": 3000000000\n}', fmt="json"), "TE005")
    assert finding.field == "num_hosts" and finding.position is not None
    assert (finding.position.line, finding.position.column) == (2, 3)


def test_float32_overflow_json() -> None:
    text = '{"tableDescriptor": [{"optimizationParameters": {"weightDecayFactor": 1e40}}]}'
    (finding,) = of(lint(text, fmt="json"), "TE005")
    assert finding.field == "table_descriptor[0].optimization_parameters.weight_decay_factor"


def test_near_miss_int32_max() -> None:
    assert located("num_hosts: 2147483647\n", "TE005") == []


def test_enum_number_beyond_int32() -> None:
    # protobuf's ParseEnum takes any number for an open enum; assigning it then raised (fuzzing).
    assert located("mode: 77777777777777777777\n", "TE005") == [("mode", 1, 7)]
    assert located("mode: -2147483649\n", "TE005") == [("mode", 1, 7)]
    assert located("mode: -2147483648\n", "TE005") == []  # an unknown value (TE308), in range
