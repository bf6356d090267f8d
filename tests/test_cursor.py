"""The cursor's place in half-typed text (load.cursor), which the language server's hover and
completion read: the fields enclosing it, the field whose value it is on, the names already
written beside it and the word a completion replaces -- in text format, JSON and YAML. The cursor
is where `|` is written in each case (the bar is taken out of the text)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tpuemb_cli.load.cursor import Context, json_context, text_format_context, yaml_context

EXAMPLES = Path(__file__).parent.parent / "examples"
Locate = Callable[[str, int], Context]


def at(locate: Locate, marked: str) -> Context:
    offset = marked.index("|")
    return locate(marked.replace("|", "", 1), offset)


def place(context: Context) -> tuple[tuple[str, ...], str | None, str]:
    return context.path, context.key, context.prefix


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("table_descriptor {\n  na|", (("table_descriptor",), None, "na")),
        ("mode: TR|", ((), "mode", "TR")),
        ('table_descriptor { name: "x" }\nfea|', ((), None, "fea")),
        ('table_descriptor: [{name: "a"}, {na|', (("table_descriptor",), None, "na")),
        ("a {\n  b <\n    c: 1\n  >\n  |", (("a",), None, "")),
        ("# x {\n|", ((), None, "")),
        # an open string is a value, whatever it holds
        ('name: "unterminated {|', ((), None, "")),
        # ... an escape at its end too, as the text-format tokenizer reads it
        ('name: "a\\|', ((), None, "")),
        # an extension's bracketed name is one name; a list closed on its line ends its field
        ("[ext.name] {\n  na|", (("[ext.name]",), None, "na")),
        ("a: [1, 2]\nb {\n  c: X|", (("b",), "c", "X")),
        ("f: foo.|", ((), "f", "foo.")),
    ],
)
def test_text_format_context(text: str, expected: tuple[object, ...]) -> None:
    assert place(at(text_format_context, text)) == expected


def test_text_format_names_written_around_the_cursor_and_the_word_replaced() -> None:
    text = (
        'table_descriptor {\n  name: "a"\n  dim|ens\n  vocabulary_size: 3\n  x { y: 1 }\n}\nmode: X'
    )
    context = at(text_format_context, text)
    assert place(context) == (("table_descriptor",), None, "dim")
    assert context.written == {"name", "vocabulary_size", "x"}
    start = text.index("dim")
    assert context.span == (start, start + len("dimens"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"tableDescriptor": [{"na|', (("tableDescriptor",), None, "na")),
        ('{"tableDescriptor": [{"name": "a"}, {|', (("tableDescriptor",), None, "")),
        ('{"mode": "TR|', ((), "mode", "TR")),
        ('{"mode": |', ((), "mode", "")),
        ('{"mode":\n  "TR|', ((), "mode", "TR")),  # a value on the next line is still its value
        ('{"mode": "TRAINING", |', ((), None, "")),
        ('{"mode": "TRAINING", "|', ((), None, "")),
        ('{"a": {"b": [1, 2]}, "c": {"d|', (("c",), None, "d")),
        ('{"name": "x{y[", "o|', ((), None, "o")),  # brackets in a string are text
        (
            '{"tableDescriptor": [{"optimizationParameters": {"gradientAccumulationStatus": "|',
            (("tableDescriptor", "optimizationParameters"), "gradientAccumulationStatus", ""),
        ),
        ("|", ((), None, "")),
        # a key typed without its colon, and the next one: the next one is still a key
        (
            '{"t": [{"vo"\n  "optimizationParameters": {"|',
            (("t", "optimizationParameters"), None, ""),
        ),
        ('{"tableDescriptor": [{"vocabularySize": 3, dim|', (("tableDescriptor",), None, "dim")),
    ],
)
def test_json_context(text: str, expected: tuple[object, ...]) -> None:
    assert place(at(json_context, text)) == expected


def test_json_names_written_around_the_cursor_and_the_word_replaced() -> None:
    text = '{"tableDescriptor": [{"name": "a", "di|m": 3, "optimizationParameters": {"adam": {}}}]}'
    context = at(json_context, text)
    assert place(context) == (("tableDescriptor",), None, "di")
    assert context.written == {"name", "optimizationParameters"}
    start = text.index('"di|m"')
    assert context.span == (start, start + len('"dim": '))  # the quotes and the colon too
    # a bare word being typed in place of a key: just the word
    bare = at(json_context, '{"mode": "X", tab|}')
    assert bare.written == {"mode"} and bare.span == (14, 17)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tables:\n  - name: a\n    dim: 3\n  - vo|", (("tables",), None, "vo")),
        ("optimizer:\n  adagrad:\n    ini|", (("optimizer", "adagrad"), None, "ini")),
        ("optimizer:\n  adagrad: {initial_|", (("optimizer", "adagrad"), None, "initial_")),
        (
            "optimizer:\n  learning_rate: {schedule: |",
            (("optimizer", "learning_rate"), "schedule", ""),
        ),
        ("tables:\n  -\n    name: a\n    di|", (("tables",), None, "di")),
        ("to|", ((), None, "to")),
        # flow style over several lines, in block style and at the top
        (
            "optimizer:\n  adagrad: {\n    initial_accumulator_value: 0.1,\n    x|",
            (("optimizer", "adagrad"), None, "x"),
        ),
        (
            "{optimizer: {adagrad: {},\n  learning_rate: {schedule: w|",
            (("optimizer", "learning_rate"), "schedule", "w"),
        ),
        ("tables: [{name: a, dim: 3},\n  {vocabulary_size: 5, na|", (("tables",), None, "na")),
        # a stray bracket in a block scalar does not take the document with it
        ("description: >\n  a {\noptimizer:\n  ada|", (("optimizer",), None, "ada")),
        # JSON names, as the loader takes them
        ("optimizer:\n  learningRate:\n    sch|", (("optimizer", "learningRate"), None, "sch")),
    ],
)
def test_yaml_context(text: str, expected: tuple[object, ...]) -> None:
    assert place(at(yaml_context, text)) == expected


def test_yaml_names_written_around_the_cursor() -> None:
    text = (
        "tables:\n"
        "  - name: a\n"
        "    dim: 3\n"
        "  - name: b\n"
        "    quantization:\n"
        "      num_buckets: 2\n"
        "    |\n"
        "    # a comment\n"
        "    vocabulary_size: 5\n"
        "  - name: c\n"
        "    combiner: sum\n"
        "optimizer: {}\n"
    )
    context = at(yaml_context, text)
    assert place(context) == (("tables",), None, "")
    assert context.written == {"name", "quantization", "vocabulary_size"}
    # a new item: nothing above it is its own
    item = at(yaml_context, "tables:\n  - name: a\n  - |\n    dim: 3\n")
    assert item.written == {"dim"}
    # in a flow mapping: its own keys, before and after
    flow = at(yaml_context, "optimizer:\n  adagrad: {a: 1, |, b: 2}\n  other: 3\n")
    assert place(flow) == (("optimizer", "adagrad"), None, "")
    assert flow.written == {"a", "b"}
    top = at(yaml_context, "optimizer: {}\nsche|dules:\ntables: []\n")
    assert top.written == {"optimizer", "tables"} and top.span == (14, 24)  # with its colon


_FIXTURES = {
    text_format_context: ["recommender.pbtxt", "ranking_model.pbtxt", "adam_optimizer.pbtxt"],
    json_context: ["ranking_model.json"],
    yaml_context: ["recommender.spec.yaml", "sparsecore/dlrm.spec.yaml"],
}


@pytest.mark.parametrize(
    ("locate", "name"),
    [(locate, name) for locate, names in _FIXTURES.items() for name in names],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_truncated_fixtures_never_raise(locate: Locate, name: str) -> None:
    """As a user types: every fixture cut at random places, the cursor anywhere in what is left
    (and at its end), is read without an exception, the span around the cursor."""
    text = (EXAMPLES / name).read_text()
    rng = random.Random(name)
    for _ in range(60):
        cut = text[: rng.randrange(len(text) + 1)]
        for offset in (len(cut), rng.randrange(len(cut) + 1)):
            context = locate(cut, offset)
            assert context.span[0] <= offset <= context.span[1] <= len(cut)
