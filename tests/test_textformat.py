"""The text-format parser: protobuf's grammar, protobuf's values, and a span for every field."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from google.protobuf import text_format

from tpuemb_cli.api import lint_string
from tpuemb_cli.load import load_input, text_tokenizer
from tpuemb_cli.load import text_parser as textformat
from tpuemb_cli.load.source import SourceMap
from tpuemb_cli.load.text_parser import ParsedText, parse_text
from tpuemb_cli.load.text_tokenizer import proto_message_header
from tpuemb_cli.model.findings import Position
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

from .helpers import CONFIGS

EXAMPLES = Path(__file__).parent.parent / "examples"

SAME_AS_PROTOBUF = [
    'table_descriptor { name: "a" vocabulary_size: 10 dimension: 4 }',
    "table_descriptor < name: 'a' ; vocabulary_size: 0x10, dimension: 010 >",
    'table_descriptor: [{ name: "a" }, { name: "b" "c" }]',
    "feature_descriptor { input_shape: [1, 2, 3] input_shape: -4 }",
    'table_descriptor { name: "\\303\\251t\\u00e9\\n" }',
    "mode: 2 num_hosts: -0 pipeline_execution_with_tensor_core: t",
    "# comment\nmode: TRAINING # trailing\n\n",
    "spmd_sharding {}",
    "spmd_sharding: {}",
    "",
]


@pytest.mark.parametrize("text", SAME_AS_PROTOBUF)
def test_builds_what_protobuf_builds(text: str) -> None:
    ours = TPUEmbeddingConfiguration()
    assert parse_text(text, ours).problems == []
    theirs = TPUEmbeddingConfiguration()
    text_format.Parse(text, theirs)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("1.5", 1.5),
        ("1.5f", 1.5),
        ("-2", -2.0),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("inf", math.inf),
        ("-Infinity", -math.inf),
        ("-inff", -math.inf),
    ],
)
def test_float_spellings(spelling: str, expected: float) -> None:
    message = OptimizationParameters()
    assert parse_text(f"weight_decay_factor: {spelling}", message).problems == []
    assert message.weight_decay_factor == expected


def test_nan_spelling() -> None:
    message = OptimizationParameters()
    assert parse_text("weight_decay_factor: nan", message).problems == []
    assert math.isnan(message.weight_decay_factor)


def test_spans_of_fields_and_list_elements() -> None:
    text = 'table_descriptor {\n  name: "a"\n}\nfeature_descriptor { input_shape: [3, 4] }\n'
    parsed = parse_text(text, TPUEmbeddingConfiguration())
    spans = {path: text[start:end] for path, (start, end) in parsed.spans.items()}
    assert spans[("table_descriptor", 0, "name")] == 'name: "a"'
    assert spans[("table_descriptor", 0)] == 'table_descriptor {\n  name: "a"\n}'
    assert spans[("feature_descriptor", 0, "input_shape", 1)] == "4"
    assert spans[("feature_descriptor", 0, "input_shape")] == "input_shape: [3, 4]"


def test_reports_every_recoverable_problem_in_one_pass() -> None:
    text = "mode: TRAINNG\nnum_hosts: 1.5\nbogus { a: 1 }\nnum_tensor_cores: 8\n"
    message = TPUEmbeddingConfiguration()
    parsed = parse_text(text, message)
    assert [p.rule for p in parsed.problems] == [
        "unknown-enum-value",
        "invalid-value",
        "unknown-field",
    ]
    assert message.num_tensor_cores == 8  # parsing went on


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mode TRAINING", "expected `:` after `mode`, found `TRAINING`"),
        ("table_descriptor { name: 'x }", "string is missing its closing quote"),
        (
            "[ext.field]: 1",
            "extensions and Any type URLs are not part of TPUEmbeddingConfiguration",
        ),
        ("table_descriptor { } }", "expected a field name, found `}`"),
        ("feature_descriptor { input_shape: [1 2] }", "expected `,` or `]` in the list, found `2`"),
        ('table_descriptor { name: "\\x" }', "bad escape in string"),
    ],
)
def test_syntax_errors_are_fatal_problems(text: str, message: str) -> None:
    parsed = parse_text(text, TPUEmbeddingConfiguration())
    (problem,) = parsed.problems
    assert problem.fatal and problem.rule == "invalid-syntax"
    assert problem.message.startswith(message)


UNCLOSED = [
    ('table_descriptor {\n  name: "t"\n', 1),
    ('table_descriptor {\n  name: "t"', 1),
    ('table_descriptor {\n  name: "t"\n\n\n', 1),
    ('table_descriptor {\n  name: "t"  # the end\n', 1),
    ("mode: TRAINING\ntable_descriptor {\n  optimization_parameters {\n    adam {}\n  }\n", 2),
    ("table_descriptor {\n  optimization_parameters <\n    adam {}\n", 2),
]


@pytest.mark.parametrize(("text", "opened"), UNCLOSED)
def test_the_end_of_input_inside_a_message_is_placed_where_protobuf_places_it(
    text: str, opened: int
) -> None:
    # protobuf points at the last token; pointing after it (on a line of its own, or past the last
    # line) points at nothing the user wrote. The message names the line of the unclosed brace.
    with pytest.raises(text_format.ParseError) as raised:
        text_format.Parse(text, TPUEmbeddingConfiguration())
    (finding,) = lint_string(text, "c.pbtxt")
    assert finding.rule == "TE001" and finding.position is not None
    assert (finding.position.line, finding.position.column) == (
        raised.value.GetLine(),
        raised.value.GetColumn(),
    )
    assert f"on line {opened}, found end of input" in finding.message
    assert f"on line {opened} is never closed" in finding.fix


def test_a_long_file_missing_its_last_brace() -> None:
    # The 104-line example without its last line: protobuf says 103:16, the last value (`128`).
    lines = (EXAMPLES / "ranking_model.pbtxt").read_text().splitlines(keepends=True)
    assert lines[-1] == "}\n" and lines[-5] == "feature_descriptor {\n"
    (finding,) = lint_string("".join(lines[:-1]), "c.pbtxt")
    assert finding.position is not None
    assert (finding.position.line, finding.position.column) == (len(lines) - 1, 16)
    assert finding.message == (
        "expected `}` to close `feature_descriptor[4]`, opened with `{` on line "
        f"{len(lines) - 4}, found end of input"
    )


def test_nesting_limit() -> None:
    deep = "table_descriptor { optimization_parameters { learning_rate { dynamic { } } } }"
    assert parse_text(deep, TPUEmbeddingConfiguration(), max_depth=4).problems == []
    (problem,) = parse_text(deep, TPUEmbeddingConfiguration(), max_depth=3).problems
    assert problem.fatal
    assert problem.message == "nesting deeper than 3 levels (protobuf's recursion limit)"


def test_deep_nesting_of_unknown_fields_is_bounded() -> None:
    deep = "x { " * 10_000 + "}" * 10_000
    parsed = parse_text(deep, TPUEmbeddingConfiguration())
    assert parsed.problems and parsed.problems[-1].fatal


def test_proto_message_header() -> None:
    assert proto_message_header("# proto-file: x.proto\n# proto-message: A.B\nx: 1\n") == "A.B"
    assert proto_message_header("x: 1\n# proto-message: A.B\n") is None
    assert proto_message_header("") is None


def test_proto_message_header_naming_no_type_suggests_the_nearest() -> None:
    text = "# proto-message: tensorflow.tpu.OptimizationParameter\nadagrad {}\n"
    (finding,) = lint_string(text, "opt.pbtxt")
    assert (finding.rule, finding.message, finding.fix) == (
        "TE007",
        "the `# proto-message:` header names 'tensorflow.tpu.OptimizationParameter', which "
        "tpuemb does not know",
        "use `OptimizationParameters`",
    )
    (named,) = load_input(text.encode(), "opt.pbtxt").problems  # type: ignore[union-attr]
    assert named.message == (
        "not a TPU embedding document: its `# proto-message:` header names "
        "tensorflow.tpu.OptimizationParameter; did you mean `OptimizationParameters`?"
    )


def _parse_everything(text: str) -> tuple[bytes, object, object, object]:
    message = TPUEmbeddingConfiguration()
    parsed = parse_text(text, message)
    problems = [(p.rule, p.message, p.path, p.span) for p in parsed.problems]
    return message.SerializeToString(deterministic=True), parsed.spans, problems, parsed.comments


CHUNKED = [
    # every fixture config, one line per chunk
    *(p.read_text() for p in sorted(CONFIGS.glob("*.pbtxt"))),
    # a list, adjacent strings and a skipped unknown field, each over many lines (and chunks)
    "feature_descriptor { name: 'f'\n input_shape: [\n"
    + ",\n".join(str(n) for n in range(300))
    + "\n] }\n",
    "table_descriptor { name:\n" + "\n".join(f'"part{n}"' for n in range(200)) + "\n}\n",
    "no_such_field {\n"
    + "\n".join(f"a{n}: [{n},\n{n}] b {{ c: 'x'\n }}" for n in range(100))
    + "\n}\nnum_hosts: 2 # after\n",
    # a syntax error early: the comments after it are still collected (suppressions)
    "num_hosts: 1\n}\n" + "\n".join(f"# tpuemb: ignore[TE101] reason {n}" for n in range(100)),
]


@pytest.mark.parametrize("text", CHUNKED, ids=range(len(CHUNKED)))
def test_chunked_tokenizing_changes_nothing(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The parser tokenizes a chunk of matches at a time (4096); with a chunk of one, every
    # token is a refill and every refill path runs.
    whole = _parse_everything(text)
    if "ignore[TE101]" in text:
        assert len(whole[3]) == 100  # type: ignore[arg-type]
    monkeypatch.setattr(text_tokenizer, "_CHUNK", 1)
    assert _parse_everything(text) == whole


def test_the_chunk_size_patched_is_the_one_the_parser_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The test above would pass unchanged if patching _CHUNK had no effect; this one would not.
    text = 'table_descriptor { name: "t" vocabulary_size: 10 dimension: 4 } ' * 100
    assert len(textformat._Parser(text, ParsedText(), 100, False).tokens) > 400
    monkeypatch.setattr(text_tokenizer, "_CHUNK", 1)
    window = textformat._Parser(text, ParsedText(), 100, False).tokens
    assert len(window) == 2 * text_tokenizer._MARGIN


def test_spans_can_be_left_out_and_found_again() -> None:
    text = 'table_descriptor { name: "a" vocabulary_size: 10 dimension: 4 }'
    assert parse_text(text, TPUEmbeddingConfiguration(), keep_spans=False).spans == {}
    assert parse_text(text, TPUEmbeddingConfiguration()).spans[("table_descriptor", 0)] == (
        0,
        len(text),
    )


def test_positions_from_a_second_parse_are_the_same() -> None:
    # Positions come from a second parse, for the findings' paths only; they are the ones a
    # parse that records every field's position gives.
    from tpuemb_cli import load
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load.source import SourceMap

    text = (Path(__file__).parent.parent / "examples/mistakes/common_mistakes.pbtxt").read_text()
    document = load.load_bytes(text.encode(), "a.pbtxt")
    source = document.source_map
    assert source is not None and source.spans == {}  # not yet
    full = parse_text(text, TPUEmbeddingConfiguration()).spans
    findings = Engine().lint(document)
    every = document._replace(source_map=SourceMap(text, full))
    assert findings == Engine().lint(every) and len(findings) > 5
    # Located: the spans of the findings' paths and their ancestors only, not one per field.
    wanted = {f.path[:cut] for f in findings for cut in range(len(f.path) + 1)}
    assert set(source.spans) <= wanted and len(source.spans) < len(full)
    # A path not located (a fix's parent, say) makes the whole map: the same spans as in full.
    name = ("table_descriptor", 0, "name")
    assert source.exact_span(name) == full[name]
    assert source.spans == full


def test_the_token_window_stays_small_even_on_one_long_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Memory in proportion to a chunk, not the file: 3,000 tables on a single line.
    table = 'table_descriptor { name: "t" vocabulary_size: 10 dimension: 4 } '
    text = table * 3000
    windows: list[int] = []
    more = textformat._Parser._more

    def measured(self: textformat._Parser) -> None:
        more(self)
        windows.append(len(self.tokens))

    monkeypatch.setattr(textformat._Parser, "_more", measured)
    parsed = parse_text(text, TPUEmbeddingConfiguration(), keep_spans=False)
    assert parsed.problems == [] and len(windows) > 5
    assert max(windows) <= text_tokenizer._CHUNK + 3 * text_tokenizer._MARGIN


@pytest.mark.parametrize(
    "span",
    [(0, 0), (0, 3), (2, 2), (3, 4), (4, 5), (4, 12), (9, 4), (12, 13), (13, 13), (5, 13)],
)
def test_position_of_a_span_is_the_line_and_column_of_each_end(span: tuple[int, int]) -> None:
    # One search when the span ends on its first line, two otherwise: the same either way.
    source = SourceMap("ab\n\ncd\nef\n\ng")
    start, end = source.line_col(span[0]), source.line_col(max(span))
    assert source.position_of_span(span) == Position(*start, *end)
