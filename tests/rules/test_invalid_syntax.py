from tests.helpers import TF_FIXTURES, lint, located
from tpuemb_cli import lint_string


def test_missing_colon_before_scalar() -> None:
    text = 'table_descriptor {\n  name: "video"\n  dimension 16\n}\n'
    assert located(text, "TE001") == [("", 3, 13)]
    (finding,) = lint(text)
    assert finding.message == "expected `:` after `dimension`, found `16`"


def test_unclosed_message_points_at_its_last_token_as_protobuf_does() -> None:
    assert located('table_descriptor {\n  name: "a"\n', "TE001") == [("", 2, 9)]


def test_unterminated_string() -> None:
    assert located('table_descriptor { name: "a }\n', "TE001") == [("", 1, 26)]


def test_not_utf8() -> None:
    findings = lint("")  # empty is fine...
    assert not [f for f in findings if f.rule == "TE001"]
    from tpuemb_cli import lint_string

    (finding,) = [f for f in lint_string(b"mode: TRAINING\n# \xff\n") if f.rule == "TE001"]
    assert finding.position is not None and (finding.position.line, finding.position.column) == (
        2,
        3,
    )
    assert "not UTF-8" in finding.message


def test_not_utf8_after_a_byte_order_mark_names_the_bad_byte_where_it_is() -> None:
    # The mark is not text (U+FEFF is not shown, nor counted in columns) but is a byte of the
    # file: the offset counts it, the line and column do not.
    data = b"\xef\xbb\xbfmode: TRAINING\n# \xff\n"
    (finding,) = [f for f in lint_string(data) if f.rule == "TE001"]
    assert finding.message.startswith("the file is not UTF-8 text: byte 0xff at offset 20")
    assert finding.position is not None
    assert (finding.position.line, finding.position.column) == (2, 3)


def test_stops_other_rules() -> None:
    # No message was built, so no rule reports on a half-parsed config.
    assert [f.rule for f in lint("mode: TRAINING\nnum_hosts {")] == ["TE001"]


def test_near_miss_valid_syntax_variants() -> None:
    text = 'table_descriptor: < name: "a"; vocabulary_size: 0x10, dimension: 4 >\n'
    assert located(text, "TE001") == []


def test_binary_of_another_type_names_it_and_the_flag() -> None:
    # A GraphDef read as a config: protobuf's error, and what the bytes are.
    data = (TF_FIXTURES / "graphs" / "conditional_accumulator.pb").read_bytes()
    (finding,) = lint_string(
        data, "graph.pb", format="binary", message_type="TPUEmbeddingConfiguration"
    )
    assert (finding.rule, finding.fix) == ("TE001", "pass `--type GraphDef`")
    # protobuf's own words between (": Wire format was corrupt" since 6.x, nothing in 5.28).
    head = "not a valid binary TPUEmbeddingConfiguration: Error parsing message with type "
    assert finding.message.startswith(head + "'tpuemb.tpu.TPUEmbeddingConfiguration'")
    assert finding.message.endswith("; it parses as GraphDef: pass `--type GraphDef`")
    # Bytes that are no type tpuemb reads: protobuf's error alone.
    (junk,) = lint_string(b"\xff\xfe", "x.pb", format="binary", message_type="GraphDef")
    assert junk.fix == "check the file is the serialized message, or pass --type"
    assert junk.message.startswith(
        "not a valid binary GraphDef: Error parsing message with type 'tpuemb.framework.GraphDef'"
    )
    assert "parses as" not in junk.message
