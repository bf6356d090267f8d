"""The second, partial parse that finds a few fields' positions passes over unwanted messages by
their braces (load/text_skipping.py): it must find exactly the spans a full parse records."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tpuemb_cli.load.text_parser import parse_text
from tpuemb_cli.load.text_skipping import body_end, message_head
from tpuemb_cli.model import schema
from tpuemb_cli.model.paths import FieldPath

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
    assert message_head(text, 0) == ("x", text.index("{ a") + 1)
    assert text[: body_end(text, text.index("{ a") + 1)].endswith("> }")
    assert body_end("{ a { ", 1) == -1  # never closed
    assert message_head("x: 5", 0) is None
    # A failing match on a long gap of comments with `#` in them returns at once (the gap pattern
    # can split a gap one way only).
    assert (
        message_head("# # # # # # # # # # # # # # # # # # # # # # # # # #\n" * 40 + "5", 0) is None
    )
