"""The cursor's place in half-typed text (load.cursor), which the language server's hover and
completion read: the fields enclosing it, and the field whose value it is on."""

from __future__ import annotations

import pytest

from tpuemb_cli.load.cursor import Context, text_format_context, yaml_context


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("table_descriptor {\n  na", Context(("table_descriptor",), None, "na")),
        ("mode: TR", Context((), "mode", "TR")),
        ('table_descriptor { name: "x" }\nfea', Context((), None, "fea")),
        ('table_descriptor: [{name: "a"}, {na', Context(("table_descriptor",), None, "na")),
        ("a {\n  b <\n    c: 1\n  >\n  ", Context(("a",), None, "")),
        ("# x {\n", Context((), None, "")),
        # an open string is a value, whatever it holds
        ('name: "unterminated {', Context((), None, "")),
        # ... an escape at its end too, as the text-format tokenizer reads it
        ('name: "a\\', Context((), None, "")),
        # an extension's bracketed name is one name; a list closed on its line ends its field
        ("[ext.name] {\n  na", Context(("[ext.name]",), None, "na")),
        ("a: [1, 2]\nb {\n  c: X", Context(("b",), "c", "X")),
        ("f: foo.", Context((), "f", "foo.")),
    ],
)
def test_text_format_context(text: str, expected: Context) -> None:
    assert text_format_context(text, len(text)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tables:\n  - name: a\n    dim: 3\n  - vo", Context(("tables",), None, "vo")),
        ("optimizer:\n  adagrad:\n    ini", Context(("optimizer", "adagrad"), None, "ini")),
        ("optimizer:\n  adagrad: {initial_", Context(("optimizer", "adagrad"), None, "initial_")),
        (
            "optimizer:\n  learning_rate: {schedule: ",
            Context(("optimizer", "learning_rate"), "schedule", ""),
        ),
        ("tables:\n  -\n    name: a\n    di", Context(("tables",), None, "di")),
        ("to", Context((), None, "to")),
    ],
)
def test_yaml_context(text: str, expected: Context) -> None:
    assert yaml_context(text, len(text)) == expected
