"""Helpers shared by the spec rules: where each optimizer of a spec is, and what it is; how a
message names a table or a feature."""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, Optimizer


def optimizers(spec: EmbeddingSpec) -> Iterator[tuple[FieldPath, Optimizer]]:
    """The spec's global optimizer and every table's own, with their paths."""
    if spec.HasField("optimizer"):
        yield ("optimizer",), spec.optimizer
    for index, table in enumerate(spec.tables):
        if table.HasField("optimizer"):
            yield ("tables", index, "optimizer"), table.optimizer


def table_label(spec: EmbeddingSpec, index: int) -> str:
    """``table "video"``, or ``table #2`` when it has no name: how a spec rule names a table."""
    name = spec.tables[index].name
    return f'table "{shown(name)}"' if name else f"table #{index}"


def feature_label(spec: EmbeddingSpec, index: int) -> str:
    """``feature "watched"``, or ``feature #0`` when it has no name: as ``table_label``."""
    name = spec.features[index].name
    return f'feature "{shown(name)}"' if name else f"feature #{index}"
