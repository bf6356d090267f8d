"""The second, partial parse that finds a few fields' positions passes over unwanted messages by
their braces (load/text_skipping.py): it must find exactly the spans a full parse records."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message

from tpuemb_cli.load.text_parser import parse_text
from tpuemb_cli.load.text_skipping import body_end, message_head, scan_element
from tpuemb_cli.model import schema
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.pbcompat import is_map_entry, is_repeated
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

from .helpers import TF_FIXTURES

ROOT = Path(__file__).parent.parent

# Braces, quotes and separators where a brace counter could go wrong: in strings (escaped quotes
# too), in comments (with quotes in them), `<...>` messages, `name: {`, separators, comments
# between a field's name and its brace.
TRICKY = r"""
# a comment with { and " and '
table_descriptor { name: "a{b}\"c{" vocabulary_size: 10 dimension: 4 }, # } trailing
table_descriptor < name: 'x}<y' vocabulary_size: 20 dimension: 8
  optimization_parameters: { adagrad {} learning_rate { constant: 0.5 } } >;
feature_descriptor # a comment before the brace {
  { name: "f\\" table_id: 1 input_shape: [4, 5] }
table_descriptor{name:"c"vocabulary_size:30 dimension:2 optimization_parameters{sgd{}}}
feature_descriptor { name: "g" table_id: 0 input_shape: 3 }
num_hosts: 2
table_descriptor { name: "d" vocabulary_size: 40 dimension: 16 }
"""


def _texts() -> list[tuple[str, str, str]]:
    """(label, text, message type) of every text config we hold, and the tricky one."""
    found = [("tricky", TRICKY, "TPUEmbeddingConfiguration")]
    for path in sorted([*ROOT.glob("examples/**/*.pbtxt"), *TF_FIXTURES.glob("**/*.pbtxt")]):
        text = path.read_text(errors="replace")
        for name in ("TPUEmbeddingConfiguration", "OptimizationParameters", "GraphDef"):
            parsed = parse_text(text, schema.resolve(name)())
            if not any(p.fatal for p in parsed.problems) and parsed.spans:
                found.append((str(path.relative_to(path.parents[2])), text, name))
                break
    return found


@pytest.mark.parametrize("label,text,type_name", _texts(), ids=[t[0] for t in _texts()])
@pytest.mark.slow
def test_partial_spans_equal_the_full_parse(label: str, text: str, type_name: str) -> None:
    message_type = schema.resolve(type_name)
    full = parse_text(text, message_type()).spans
    paths = sorted(full, key=repr)
    chooser = random.Random(label)
    for _ in range(12):
        chosen = chooser.sample(paths, min(len(paths), chooser.choice((1, 2, 5))))
        wanted: frozenset[FieldPath] = frozenset(
            path[:cut] for path in chosen for cut in range(len(path) + 1)
        )
        partial = parse_text(text, message_type(), keep_spans=wanted).spans
        assert partial == {path: full[path] for path in wanted if path in full}, chosen


def test_partial_spans_of_the_tricky_text() -> None:
    # Explicitly: the last table, after messages with braces in strings and comments.
    message_type = schema.resolve("TPUEmbeddingConfiguration")
    last = ("table_descriptor", 3, "dimension")
    wanted = frozenset(last[:cut] for cut in range(4))
    spans = parse_text(TRICKY, message_type(), keep_spans=wanted).spans
    start, end = spans[last]
    assert TRICKY[start:end] == "dimension: 16"
    assert spans == {
        path: span
        for path, span in parse_text(TRICKY, message_type()).spans.items()
        if path in wanted
    }


def test_body_end_and_message_head() -> None:
    text = "x # {\n { a: \"}\" b < c: '>' > } tail"
    assert message_head(text, 0) == ("x", 0, text.index("{ a") + 1)
    assert text[: body_end(text, text.index("{ a") + 1)].endswith("> }")
    assert body_end("{ a { ", 1) == -1  # never closed
    assert message_head("x: 5", 0) is None
    # A failing match on a long gap of comments with `#` in them returns at once (the gap pattern
    # can split a gap one way only).
    assert (
        message_head("# # # # # # # # # # # # # # # # # # # # # # # # # #\n" * 40 + "5", 0) is None
    )


def _elements_and_their_scalars(message: Message) -> frozenset[FieldPath]:
    """Every element of every top-level repeated message field, with each scalar field of its
    type (set or not): what placing a change on every table's name, say, looks for."""
    wanted: set[FieldPath] = {()}
    field: Any
    for field in message.DESCRIPTOR.fields:
        if field.message_type is None or not is_repeated(field) or is_map_entry(field):
            continue
        scalars = [f.name for f in field.message_type.fields if f.message_type is None]
        wanted.add((field.name,))
        for index in range(len(getattr(message, field.name))):
            wanted.add((field.name, index))
            wanted.update((field.name, index, name) for name in scalars)
    return frozenset(wanted)


@pytest.mark.parametrize("label,text,type_name", _texts(), ids=[t[0] for t in _texts()])
def test_spans_of_every_element_equal_the_full_parse(label: str, text: str, type_name: str) -> None:
    # The wanted elements whose fields are plain are scanned (text_skipping.scan_element), the
    # others parsed: either way, the spans of the full parse.
    message = schema.resolve(type_name)()
    full = parse_text(text, message).spans
    wanted = _elements_and_their_scalars(message)
    partial = parse_text(text, type(message)(), keep_spans=wanted).spans
    assert partial == {path: full[path] for path in wanted if path in full}


# Elements a scan must leave to the parse, or take with care, between plain ones: adjacent
# literals, escapes, comments anywhere, `<...>`, separators, a field given twice, a value that
# does not convert, an unknown field, a list, repeated scalars (most are problems the parse
# records and goes on after).
AWKWARD_ELEMENTS = """
table_descriptor { name: "a" "b" vocabulary_size: 10 }
table_descriptor { name: 'q' # a comment
  vocabulary_size: # another
  20 dimension: 4; optimization_parameters: < adagrad {} > }
table_descriptor < name: "x\\"y" dimension: 8 >
table_descriptor { name: "d" dimension: 8 dimension: 9 }
table_descriptor { name: "e" dimension: 1e3 }
table_descriptor { name: "f" dimension: 99999999999 }
table_descriptor { nmae: "g" dimension: 3 }
table_descriptor { name: "h" optimization_parameters { sgd {} } optimization_parameters { } }
table_descriptor { name: "i", dimension: 2, }
table_descriptor { dimension: 7 name: "j" }
feature_descriptor { name: "f" table_id: 1 input_shape: [4, 5] }
feature_descriptor { name: "g" table_id: 1 input_shape: 4 input_shape: 5 }
feature_descriptor { name: "k" table_id: TWO }
table_descriptor { name: "last" vocabulary_size: 1 dimension: 1 }
"""


def test_spans_of_awkward_elements_equal_the_full_parse() -> None:
    message = TPUEmbeddingConfiguration()
    parsed = parse_text(AWKWARD_ELEMENTS, message)
    assert not any(p.fatal for p in parsed.problems) and parsed.problems
    wanted = _elements_and_their_scalars(message)
    partial = parse_text(AWKWARD_ELEMENTS, TPUEmbeddingConfiguration(), keep_spans=wanted).spans
    assert partial == {path: parsed.spans[path] for path in wanted if path in parsed.spans}


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ('name: "t" vocabulary_size: 10, dimension: 4 }', ['name: "t"', "dimension: 4"]),
        (
            "name: 't' # }\n optimization_parameters: < sgd { } > dimension: 4; }",
            ["name: 't'", "dimension: 4"],
        ),
        ("vocabulary_size: 10 }", []),
        ('dimension: 4 name: "t" >', None),  # the wrong closer
        ('name: "t" "u" }', None),  # adjacent literals: the parse joins them
        ('name: "t\\n" }', None),  # an escape: the parse unescapes it
        ('name: "t" name: "u" }', None),  # given twice
        ('name: "t" dimension: 1e3 }', None),  # does not convert
        ('nmae: "t" }', None),  # not a field of the type
        ("name: [1] }", None),  # a list
        ("name { } }", None),  # a scalar written as a message
        ('name: "t" optimization_parameters: 5 }', None),
        ('name: "t"', None),  # never closed
    ],
)
def test_scan_takes_plain_elements_only(body: str, found: list[str] | None) -> None:
    text = "{ " + body
    descriptor = TPUEmbeddingConfiguration.TableDescriptor.DESCRIPTOR
    scanned = scan_element(text, descriptor, 1, {"name", "dimension"})
    if found is None:
        assert scanned is None
        return
    assert scanned is not None
    end, spans = scanned
    assert end == len(text)
    assert [text[start:stop] for start, stop in spans.values()] == found


def test_a_partial_parse_stops_once_it_has_every_wanted_span() -> None:
    # What follows the last wanted span cannot change it: the broken tail is never read.
    text = 'table_descriptor { name: "a" }\ntable_descriptor { name: "b" }\nnum_hosts: {{{\n'
    first = ("table_descriptor", 0, "name")
    wanted = frozenset(first[:cut] for cut in range(4))
    parsed = parse_text(text, TPUEmbeddingConfiguration(), keep_spans=wanted)
    assert parsed.problems == []
    assert parsed.spans == {
        ("table_descriptor",): (0, 30),
        ("table_descriptor", 0): (0, 30),
        first: (19, 28),
    }
    # Looking for a span that is not there, it reads on, to the broken tail.
    missing = wanted | {("table_descriptor", 0, "dimension")}
    parsed = parse_text(text, TPUEmbeddingConfiguration(), keep_spans=missing)
    assert [p.rule for p in parsed.problems] == ["invalid-syntax"]
