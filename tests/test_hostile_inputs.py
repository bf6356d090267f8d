"""Hostile input that protobuf, ``json`` and PyYAML do not refuse for us (tpuemb_cli/load/limits):
YAML aliases (nested, merged, self-referencing), lone surrogates and huge integers in JSON, YAML
and text format. Generated: never an exception, never more than a bounded time, and a finding
at the place the input shows the problem, instead. `make fuzz` runs the same generators under
atheris (fuzz/fuzz_loaders.py, yaml-aliases and json-hostile).
"""

from __future__ import annotations

import json
import re
import time
import tracemalloc
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tpuemb_cli import formatters
from tpuemb_cli.cli import main
from tpuemb_cli.engine import Engine
from tpuemb_cli.load import load_bytes
from tpuemb_cli.load.limits import INT_DIGITS, MAX_ALIAS_NODES
from tpuemb_cli.model.findings import Finding

FAST = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ENGINE = Engine()
# Every document here loads and lints in well under this on any machine CI runs on; a loader
# that expanded what it should refuse takes minutes (or memory without end) instead.
SECONDS = 5.0


def _lint(data: bytes, fmt: str, message_type: str | None = None) -> list[Finding]:
    started = time.monotonic()
    findings = ENGINE.lint(load_bytes(data, f"f.{fmt}", fmt, message_type))
    assert time.monotonic() - started < SECONDS
    report = formatters.Report(findings, 1)
    # Printable: no lone surrogate left (SARIF's results hold the same strings as JSON's).
    for output in ("json", "concise", "full"):
        formatters.get(output)(report, False).encode("utf-8")
    assert "TE010" not in {f.rule for f in findings}, [f.message for f in findings]
    return findings


def _at(findings: list[Finding], rule: str) -> list[tuple[int, int, str]]:
    found = []
    for finding in findings:
        if finding.rule == rule:
            assert finding.position is not None, finding
            found.append((finding.position.line, finding.position.column, finding.message))
    return sorted(found)


# -- YAML aliases ------------------------------------------------------------------------------
class Aliases(NamedTuple):
    text: str
    # The refusal the loader must report: (line, column, the start of its message), or None.
    refusal: tuple[int, int, str] | None


@st.composite
def alias_documents(draw: st.DrawFn) -> Aliases:
    """Anchored sequences and mappings, each of literals and aliases of earlier anchors (and,
    sometimes, of itself), mappings merging earlier ones (`<<`), then a use of the last; with
    a model of what each node expands to, as the loader must count it."""
    sizes: dict[str, int] = {}
    mappings: list[str] = []
    lines = ["defs:"]
    expanded = 0
    refusal: tuple[int, int, str] | None = None
    selfish = draw(st.integers(0, 3)) == 0  # a quarter of the documents may refer to themselves

    def alias(name: str, line: int, column: int, self_name: str) -> int:
        """An alias at (line, column) of the text; its expanded size."""
        nonlocal expanded, refusal
        if refusal is not None:
            return 0
        if name == self_name:
            refusal = (line, column, f"the alias `*{name}` is inside the node `&{name}` names")
            return 0
        expanded += sizes[name]
        if expanded > MAX_ALIAS_NODES:
            refusal = (line, column, "the YAML aliases expand to more than 100,000 nodes")
        return sizes[name]

    for number in range(draw(st.integers(1, 8))):
        name = f"a{number}"
        kinds = ["seq", "map"] + ["merge"] * bool(mappings) + ["fan", "fan"] * bool(sizes)
        kind = draw(st.sampled_from(kinds))
        line = len(lines) + 1
        text = f"  - &{name} " + ("[" if kind in ("seq", "fan") else "{")
        size = 1
        if kind == "fan":  # k aliases of the latest anchor: billion laughs, in little
            previous = f"a{len(sizes) - 1}"
            for index in range(draw(st.integers(2, 12))):
                text += ", " * (index > 0)
                size += alias(previous, line, len(text) + 1, name)
                text += f"*{previous}"
            lines.append(text + "]")
            sizes[name] = size
            continue
        if kind == "merge":
            merged = draw(st.lists(st.sampled_from(mappings), min_size=1, max_size=4))
            text += "<<: ["
            size += 2  # the `<<` key and its list
            for index, target in enumerate(merged):
                text += ", " * (index > 0)
                size += alias(target, line, len(text) + 1, name)
                text += f"*{target}"
            text += "]"
        for index in range(draw(st.integers(0 if kind == "merge" else 1, 10))):
            text += ", " * (index > 0 or kind == "merge")
            if kind != "seq":
                text += f"k{index}: "
                size += 1
            choice = draw(st.integers(0, 39))  # mostly aliases, now and then itself
            if choice == 0 and selfish:
                alias(name, line, len(text) + 1, name)  # refused
                text += f"*{name}"
            elif choice < 30 and sizes:
                # The latest anchor half the time: aliases of aliases grow exponentially.
                last = len(sizes) - 1
                target = f"a{draw(st.sampled_from([last, draw(st.integers(0, last))]))}"
                size += alias(target, line, len(text) + 1, name)
                text += f"*{target}"
            else:
                text += "x"
                size += 1
        lines.append(text + ("]" if kind == "seq" else "}"))
        sizes[name] = size
        if kind != "seq":
            mappings.append(name)
    used = f"a{len(sizes) - 1}"
    alias(used, len(lines) + 1, len("tables: [") + 1, "")
    lines += [f"tables: [*{used}]", "features: []"]
    return Aliases("\n".join(lines) + "\n", refusal)


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@FAST
@given(alias_documents())
def test_yaml_aliases_are_bounded_and_refused_at_the_alias(document: Aliases) -> None:
    event("read" if document.refusal is None else document.refusal[2].split("`")[0])
    findings = _lint(document.text.encode(), "yaml", "EmbeddingSpec")
    refused = [
        (line, column, message)
        for line, column, message in _at(findings, "TE001")
        if "alias" in message
    ]
    if document.refusal is None:
        assert refused == [], document.text
    else:
        line, column, start = document.refusal
        assert [(at[0], at[1]) for at in refused] == [(line, column)], document.text
        assert refused[0][2].startswith(start)


LAUGHS = (
    "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(
        f"{level}: &{level} [" + ", ".join([f"*{chr(ord(level) - 1)}"] * 9) + "]\n"
        for level in "bcdefghi"
    )
    + "tables: *i\nfeatures: []\n"  # 9**9 = 387,420,489 lols
)


def test_billion_laughs_is_refused_in_milliseconds_and_little_memory() -> None:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        findings = _lint(LAUGHS.encode(), "yaml", "EmbeddingSpec")
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert _at(findings, "TE001") == [
        (6, 8, "the YAML aliases expand to more than 100,000 nodes"),
    ]
    assert elapsed < 0.5 and peak < 10_000_000, (elapsed, peak)


def test_just_under_the_budget_is_read() -> None:
    # 9 aliases of a list of 11,110 nodes: 99,990 nodes from aliases, read (a spec may reuse
    # blocks that much); of a list of 11,112, 100,008: refused at the ninth alias.
    def document(items: int) -> bytes:
        text = "a: &a [" + ", ".join(["x"] * items) + "]\nb: [" + ", ".join(["*a"] * 9) + "]\n"
        return text.encode()

    assert _at(_lint(document(11_109), "yaml", "EmbeddingSpec"), "TE001") == []
    assert _at(_lint(document(11_111), "yaml", "EmbeddingSpec"), "TE001") == [
        (2, 37, "the YAML aliases expand to more than 100,000 nodes"),
    ]


def test_nesting_through_aliases_is_bounded() -> None:
    # 150 levels, aliased 60 levels down: 211 levels once expanded (the limit is 202).
    text = "a: &a " + "[" * 150 + "]" * 150 + "\nd: " + "[" * 60 + "*a" + "]" * 60 + "\n"
    assert _at(_lint(text.encode(), "yaml", "EmbeddingSpec"), "TE001") == [
        (2, 64, "the YAML nests deeper than 202 levels once its aliases are expanded"),
    ]
    deep = "a: " + "[" * 300 + "]" * 300 + "\n"
    assert _at(_lint(deep.encode(), "yaml", "EmbeddingSpec"), "TE001") == [
        (1, 205, "the YAML nests deeper than 202 levels"),
    ]


def test_json_nested_past_what_json_reads_is_refused_at_its_bracket() -> None:
    # json.loads gives up (RecursionError) about a thousand levels down; the finding must not
    # cost what the text's depth squared does (200,000 levels took 22 GB and minutes).
    depth = 200_000
    text = '{"tableDescriptor":' + "[" * depth + "]" * depth + "}"
    tracemalloc.start()
    started = time.perf_counter()
    try:
        findings = _lint(text.encode(), "json")
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Level 203 is opened by the 202nd `[`, after the 19 characters of `{"tableDescriptor":`.
    assert _at(findings, "TE001") == [(1, 19 + 202, "the JSON nests deeper than 202 levels")]
    assert len(findings) == 1, findings
    assert elapsed < 1.0 and peak < 20_000_000, (elapsed, peak)


# Each refused at an alias: (line, column, the start of the message).
REFUSED = {
    "tables: &a [*a]\n": (1, 13, "the alias `*a` is inside the node `&a` names"),
    "tables: &a [{name: t, vocabulary_size: 8, dim: 4, x: {y: [*a]}}]\n": (
        1,
        59,
        "the alias `*a` is inside the node `&a` names",
    ),
    "m: &m {<<: *m}\ntables: []\n": (1, 12, "the alias `*m` is inside the node `&m` names"),
    LAUGHS: (6, 8, "the YAML aliases expand to more than 100,000 nodes"),
}


@pytest.mark.parametrize("text", REFUSED, ids=range(len(REFUSED)))
@pytest.mark.parametrize("command", ["check", "check --spec", "explain", "compile", "convert"])
def test_refused_in_every_command(text: str, command: str, tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    line, column, message = REFUSED[text]
    if command == "check --spec":
        config = tmp_path / "c.pbtxt"
        config.write_text("mode: TRAINING\n")
        args = ["check", "--format", "concise", "--spec", str(path), str(config)]
    elif command == "convert":
        args = ["convert", "--to", "json", "--type", "EmbeddingSpec", str(path)]
    elif command == "check":
        args = ["check", "--format", "concise", "--type", "EmbeddingSpec", str(path)]
    elif command == "explain":
        # With the type said: named without it, the laughs' own keys (a, b, ...) say it is no
        # spec, which explain reports as such (recognising it composes with the same limits).
        args = ["explain", "--type", "EmbeddingSpec", str(path)]
    else:
        args = [command, str(path)]
    started = time.monotonic()
    result = CliRunner().invoke(main, args)
    assert time.monotonic() - started < SECONDS
    assert "Traceback" not in result.output + result.stderr
    assert "internal error" not in result.output + result.stderr
    where = f"{path}:{line}:{column}: TE001 [error] {message}"
    assert result.exit_code == 1
    if command == "explain":  # explain says to run check
        assert result.stderr == f"tpuemb: error: {path}: does not parse; run `tpuemb check` on it\n"
    elif command in ("compile", "convert"):
        assert result.stderr.startswith(where), result.stderr
    else:
        assert where in result.stdout, result.stdout


# -- lone surrogates and huge integers ---------------------------------------------------------
ESCAPES = ["ab", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\u00e9", "\\\\ud800", "\\udbff", "é"]
NUMBERS = st.sampled_from([1, 19, 20, 25, 400, INT_DIGITS, INT_DIGITS + 1, 6000])


def _digits(count: int, first: str) -> str:
    return first + "7" * (count - 1)


@st.composite
def hostile_json(draw: st.DrawFn) -> tuple[str, set[tuple[int, int, str]]]:
    """A config as JSON with escapes and long numbers in its strings, keys and numbers, and the
    findings (line, column, rule) those must give."""
    expected: set[tuple[int, int, str]] = set()
    parts: list[str] = []

    def add(text: str) -> int:
        parts.append(text)
        return sum(map(len, parts)) - len(text)  # where it starts

    def string() -> None:
        token = '"' + "".join(draw(st.lists(st.sampled_from(ESCAPES), max_size=4))) + '"'
        at = add(token)
        if re.search("[\ud800-\udfff]", json.loads(token)):  # json joins pairs itself
            expected.add((1, at + 1, "TE007"))

    def number(key_at: int | None) -> None:
        """An integer, unquoted or (in the field whose key is at ``key_at``) quoted: a long
        one is found where it is written, or, quoted, at its field."""
        count = draw(NUMBERS)
        quoted = key_at is not None and draw(st.booleans())
        text = _digits(count, draw(st.sampled_from(["1", "9"])))
        if draw(st.booleans()):
            text = "-" + text
        at = add(f'"{text}"' if quoted else text)
        if count > INT_DIGITS:
            expected.add((1, (key_at if quoted and key_at is not None else at) + 1, "TE005"))

    add('{"tableDescriptor": [')
    for index in range(draw(st.integers(1, 3))):
        add(", " * (index > 0) + '{"name": ')
        string()
        key_at = add(', "vocabularySize": ') + 2
        number(key_at)
        add(', "dimension": 4, "optimizationParameters": {"learningRate": {"constant": ')
        number(None)
        add("}}}")
    add('], "mode": ')
    string()
    add(", ")
    string()
    add(": [")
    number(None)
    add("]}")
    return "".join(parts), expected


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@FAST
@given(hostile_json())
def test_json_surrogates_and_huge_numbers_are_findings_at_their_place(
    case: tuple[str, set[tuple[int, int, str]]],
) -> None:
    text, expected = case
    findings = _lint(text.encode(), "json")
    special = {
        (line, column, rule)
        for rule in ("TE005", "TE007")
        for line, column, message in _at(findings, rule)
        if message.startswith(("the string", "the number"))
    }
    assert special == expected, text


@st.composite
def hostile_yaml(draw: st.DrawFn) -> tuple[str, set[tuple[int, int, str]]]:
    """A spec as YAML with escapes in double-quoted strings and long plain integers."""
    expected: set[tuple[int, int, str]] = set()
    lines = ["tables:"]
    for index in range(draw(st.integers(1, 3))):
        token = '"' + "".join(draw(st.lists(st.sampled_from(ESCAPES), max_size=4))) + '"'
        line = f"  - name: {token}"
        decoded = json.loads(token)  # YAML's double-quoted escapes read as JSON's here
        halves = re.sub("[\ud800-\udbff][\udc00-\udfff]", "", decoded)
        if re.search("[\ud800-\udfff]", halves):
            expected.add((len(lines) + 1, len("  - name: ") + 1, "TE007"))
        lines.append(line)
        count = draw(NUMBERS)
        number = _digits(count, "9")
        lines.append(f"    vocabulary_size: {number}")
        if count > INT_DIGITS:
            expected.add((len(lines), len("    vocabulary_size: ") + 1, "TE005"))
        lines.append(f"    dim: {index + 1}")
    lines.append("features: []")
    return "\n".join(lines) + "\n", expected


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@FAST
@given(hostile_yaml())
def test_yaml_surrogates_and_huge_numbers_are_findings_at_their_place(
    case: tuple[str, set[tuple[int, int, str]]],
) -> None:
    text, expected = case
    findings = _lint(text.encode(), "yaml", "EmbeddingSpec")
    special = {
        (line, column, rule)
        for rule in ("TE005", "TE007")
        for line, column, message in _at(findings, rule)
        if message.startswith(("the string", "the number"))
    }
    assert special == expected, text


@pytest.mark.slow  # a hypothesis sweep: `make test-slow`
@FAST
@given(st.lists(st.sampled_from(ESCAPES), max_size=4), NUMBERS, NUMBERS)
def test_text_format_escapes_and_huge_numbers(escapes: list[str], size: int, enum: int) -> None:
    name = '"' + "".join(escapes) + '"'
    number = _digits(size, "9")
    text = f"table_descriptor {{ name: {name} vocabulary_size: {number} dimension: 4 }}\n"
    text += f"mode: {_digits(enum, '8')}\n"
    findings = _lint(text.encode(), "text")
    # protobuf's own unescaping refuses every surrogate escape, even a pair: a syntax error.
    if re.search(r"(?<!\\)(?:\\\\)*\\ud[89a-f]", name):
        assert [(f.rule, f.position and f.position.column) for f in findings] == [
            ("TE001", len("table_descriptor { name: ") + 1)
        ]
        return
    column = len(f"table_descriptor {{ name: {name} vocabulary_size: ") + 1
    long_ones = _at(findings, "TE005")
    if size > INT_DIGITS:
        assert (1, column) in [(line, col) for line, col, _ in long_ones]
    if enum > INT_DIGITS:
        assert (2, 7) in [(line, col) for line, col, _ in long_ones]
