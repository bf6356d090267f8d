"""YAML read with libyaml's events reads exactly what PyYAML's Python parser reads (issue 26: a
1.2 MB spec took 19 s in PyYAML's scanner alone). libyaml is used where the two agree; where it
may not (tabs, carriage returns, byte-order marks, control characters, block scalars, tags,
scalars over several lines, any error) PyYAML reads the document from the start, so that what
is accepted, the values, the positions and every error message stay PyYAML's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tpuemb_cli.load import yaml_parser
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec

EXAMPLES = Path(__file__).parent.parent / "examples"

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML without libyaml")


def _read(text: str) -> tuple[Any, ...]:
    message = EmbeddingSpec()
    result, raw = yaml_parser.parse_yaml(text, message)
    problems = [(p.rule, p.message, p.span, p.fix, p.fatal) for p in result.problems]
    spans = sorted(raw.items(), key=repr)
    return repr(result.value), problems, spans, message.SerializeToString(deterministic=True)


def _read_by_pyyaml(text: str) -> tuple[Any, ...]:
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(yaml_parser, "_read_fast", lambda text, nesting: None)
        return _read(text)


@pytest.mark.parametrize(
    "path", [EXAMPLES / "sparsecore" / "dlrm.spec.yaml", EXAMPLES / "recommender.spec.yaml"]
)
def test_specs_as_written_are_read_by_libyaml(path: Path) -> None:
    text = path.read_text()
    assert yaml_parser._read_fast(text, 202) is not None
    assert _read(text) == _read_by_pyyaml(text)


# Documents libyaml reads and PyYAML refuses or reads otherwise (found by comparing the two on
# random documents): each goes to PyYAML, whose reading (or error) stands.
DIVERGING = [
    "tables:\n  - {name: a,\tdim: 8}\n",  # a tab inside a flow mapping
    "optimizer: >#\n  x\n",  # a block scalar's header followed by a comment without a space
    "a: !  \n",  # the non-specific tag: implicit for PyYAML, not for libyaml
    "{? .6 \n- 6?---1& &a |.}",  # a plain scalar over lines in a flow mapping
    "\ufeffa: 1\n",  # a byte-order mark: libyaml does not count it in positions
    "a: 1\r\nb: 2\r\n",  # carriage returns
    "a: b\x85c\n",  # NEL, a line break for YAML 1.1
    "2:\n- 4\n",  # an indentless sequence
]


@pytest.mark.parametrize("text", DIVERGING)
def test_where_libyaml_may_differ_pyyaml_reads(text: str) -> None:
    assert _read(text) == _read_by_pyyaml(text)


@pytest.mark.parametrize("text", DIVERGING[:6])
def test_the_fast_reader_stands_aside_for_what_may_diverge(text: str) -> None:
    assert yaml_parser._read_fast(text, 202) is None


_ATOMS = [
    "a", "b c", "1", "-2", "0x1f", "1e3", ".5", "~", "null", "true", "yes", "2001-02-03",
    "2001-02-30", "'q x'", '"d\\u00e9"', '"\\t"', "é", "😀", "x: y", "a #c", "&a 1", "*a",
    "!!int 3", "<<", "? k", "-", "[]", "{}", "''", "a,b", "a]b", "{a", "%", "@x", "|", ">",
    "-1.5e-3", ".inf", ".nan", "9" * 30, "1_000", "name", "tables", "dim", "\t", "\r",
]  # fmt: skip


@st.composite
def _documents(draw: st.DrawFn) -> str:
    def flow(depth: int) -> str:
        if depth > 2 or draw(st.booleans()):
            return draw(st.sampled_from(_ATOMS))
        items = [flow(depth + 1) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.booleans()):
            return "[" + ", ".join(items) + draw(st.sampled_from(["]", "", ",]"]))
        pairs = [f"{draw(st.sampled_from(_ATOMS))}: {item}" for item in items]
        return "{" + ", ".join(pairs) + draw(st.sampled_from(["}", "", ",}"]))

    def block(depth: int, indent: int) -> list[str]:
        pad = " " * indent
        lines = []
        mapping = draw(st.booleans())
        for _ in range(draw(st.integers(1, 3))):
            lead = f"{pad}{draw(st.sampled_from(_ATOMS))}:" if mapping else f"{pad}-"
            if depth < 2 and draw(st.booleans()):
                lines.append(lead)
                lines += block(depth + 1, indent + draw(st.sampled_from([0, 1, 2, 4])))
            else:
                lines.append(f"{lead} {flow(depth)}")
        return lines

    return "\n".join(block(0, 0)) + draw(st.sampled_from(["", "\n", "\n...\n", "\n---\nx\n"]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents())
@pytest.mark.slow
def test_libyaml_and_pyyaml_read_alike(text: str) -> None:
    assert _read(text) == _read_by_pyyaml(text)
