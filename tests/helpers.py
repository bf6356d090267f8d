"""Helpers shared by the tests: lint a snippet, pick findings, the fixture folders."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from tpuemb_cli import lint_string
from tpuemb_cli.model.findings import Finding

DATA = Path(__file__).parent / "data"
# Copies of ../shared/fixtures/tf-2.21 (made by TensorFlow 2.21's own code), so a clean clone
# tests without anything beside it. cases.py is kept as .txt: it imports TensorFlow.
TF_FIXTURES = DATA / "tf-2.21"
CONFIGS = TF_FIXTURES / "config"
OPTIMS = TF_FIXTURES / "optim"
# The shipped examples `explain --memory` reports on, one of each kind of document (the ranking
# model's JSON and binary are its text's; the `changes/` folders hold next versions for `diff`;
# the mistakes file is the check's): the browser's pages and the sweep's tests take them from
# here, and test_memory_sweep fails if an example with a memory report is missing.
MEMORY_EXAMPLES = (
    "examples/ranking_model.pbtxt",
    "examples/recommender.pbtxt",
    "examples/recommender.spec.yaml",
    "examples/sparsecore/dlrm.spec.yaml",
    "examples/jax/recommender.stacked.pbtxt",
    "examples/keras/ranking.keras",
    "examples/torchrec/recommender.torchrec.pbtxt",
)
# Examples with a memory report that are another's in another format or version.
MEMORY_EXAMPLES_ALIKE = (
    "examples/ranking_model.json",
    "examples/ranking_model.pb",
    "examples/changes/recommender.next.spec.yaml",
    "examples/jax/changes/recommender.next.stacked.pbtxt",
    "examples/mistakes/common_mistakes.pbtxt",
)


def lint(text: str, message_type: str | None = None, fmt: str = "text") -> list[Finding]:
    return lint_string(textwrap.dedent(text), name="t.pbtxt", format=fmt, message_type=message_type)


def of(findings: list[Finding], code: str) -> list[Finding]:
    return [finding for finding in findings if finding.rule == code]


def where(finding: Finding) -> tuple[str, int, int]:
    """(field path, line, column) of a finding with a position."""
    assert finding.position is not None
    return finding.field, finding.position.line, finding.position.column


def located(text: str, code: str, message_type: str | None = None) -> list[tuple[str, int, int]]:
    """Where ``code`` fires in ``text``: (field path, line, column) of each finding."""
    return [where(finding) for finding in of(lint(text, message_type), code)]


# A config that lints clean: tests change one thing in it at a time.
CLEAN = """\
table_descriptor {
  name: "video"
  vocabulary_size: 1000
  dimension: 16
  optimization_parameters {
    adagrad {}
    learning_rate { constant: 0.05 }
    gradient_accumulation_status: ENABLED
  }
}
mode: TRAINING
num_hosts: 1
num_tensor_cores: 8
feature_descriptor { name: "watched" table_id: 0 input_shape: 16 }
"""


def optimizer(body: str) -> str:
    """CLEAN with the table's optimization_parameters body replaced by ``body`` (one line)."""
    start = CLEAN.index("  optimization_parameters {")
    end = CLEAN.index("  }\n}\nmode")
    return CLEAN[:start] + "  optimization_parameters {\n    " + body + "\n" + CLEAN[end:]


# A spec that lints clean: spec rule tests change one thing in it at a time.
SPEC = """\
optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}
tables:
  - name: video
    vocabulary_size: 1000
    dim: 16
features:
  - {name: watched, table: video}
topology: {num_hosts: 1, cores_per_host: 8, per_replica_batch_size: 16}
"""


def spec_located(text: str, code: str) -> list[tuple[str, int, int]]:
    """Where ``code`` fires in the YAML spec ``text``: (field path, line, column) of each."""
    return [where(finding) for finding in of(lint(text, fmt="yaml"), code)]


GRAPHS = TF_FIXTURES / "graphs"


def graph(name: str) -> Any:
    """A fresh copy of one of TensorFlow's fixture graphs (a GraphDef message)."""
    from tpuemb_cli.pb.framework.graph_pb2 import GraphDef

    loaded = GraphDef()
    loaded.ParseFromString((GRAPHS / f"{name}.pb").read_bytes())
    return loaded


def node(graph_def: Any, name: str) -> Any:
    return next(n for n in graph_def.node if n.name == name)


def lint_graph(graph_def: Any) -> list[Finding]:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.load import Document

    return Engine().lint(Document("g.pb", "binary", "GraphDef", graph_def, None))


def graph_findings(graph_def: Any, code: str) -> list[tuple[str, str]]:
    """(field path, message) of each ``code`` finding on ``graph_def``."""
    return [(f.field, f.message) for f in lint_graph(graph_def) if f.rule == code]
