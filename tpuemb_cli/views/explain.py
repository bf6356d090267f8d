"""`tpuemb explain`: what TensorFlow will do with a spec, a config or one optimizer.

For a spec or a config, the effective settings of every table, so a reviewer sees what TensorFlow
will do: optimizer, learning rate (constant, or tag and schedule), clipping, decay, accumulation,
packing and the features that use the table; then the features whose `table_id` names no table,
and the topology. For an `OptimizationParameters` file, the same settings of that one optimizer,
with every parameter of its algorithm: it belongs to no table and has no topology, so none is
shown."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from tpuemb_cli.frontends import explain_of
from tpuemb_cli.load import Document
from tpuemb_cli.model import schema
from tpuemb_cli.model.words import plural, printable
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.spec.facts import SpecFacts
from tpuemb_cli.views.config_table import (
    SETTINGS,
    clip_range,
    config_tables,
    settings,
    status,
    value,
)
from tpuemb_cli.views.text import text_of

# Which engine the table's sizes are for, on a spec that trains on SparseCores.
SPARSECORE_ROWS = (
    "rows x dim above: the TensorCore config (TPUEmbedding, vocabularies padded to the hosts); "
    "this spec trains on SparseCores (TPUEmbeddingV2), whose tables are padded and stacked as "
    "follows"
)


def _algorithm(params: OptimizationParameters) -> str:
    """The algorithm with every parameter TensorFlow reads from it (proto3: an unset value is
    read as 0 or false, so it is shown as that); a deprecated field only when it is set."""
    name = params.WhichOneof("parameters")
    if name is None:
        return "none (no algorithm is set)"
    algorithm: Message = getattr(params, name)
    descriptor: Any = algorithm.DESCRIPTOR
    values = [
        f"{field.name} {value(algorithm, field)}"
        for field in descriptor.fields
        if not field.GetOptions().deprecated
        or field in (set_field for set_field, _ in algorithm.ListFields())
    ]
    return f"{name} ({', '.join(values)})" if values else name


def _optimizer(params: OptimizationParameters) -> list[str]:
    rows = list(zip(SETTINGS, [_algorithm(params), *settings(params, {})[1:]], strict=True))
    if params.HasField("simulated_quantization"):
        quantization = params.simulated_quantization
        limits = quantization.clipping_limits
        rows.append(
            (
                "quantization",
                f"{'enabled' if quantization.enabled else 'disabled'}, "
                f"{plural(quantization.num_buckets, 'bucket')}, "
                f"range {clip_range(limits, quantization.HasField('clipping_limits'))}",
            )
        )
    if params.HasField("hot_id_replication_configuration"):
        hot_ids = params.hot_id_replication_configuration
        rows.append(("hot id replication", status(hot_ids, "status")))
    width = max(len(label) for label, _ in rows)
    return [f"{label.ljust(width)}  {printable(value)}" for label, value in rows]


def explain_document(document: Document, facts: SpecFacts | None = None) -> str:
    """The explanation of a loaded spec (``facts``: what it compiles to, and its SparseCore
    layout), config or OptimizationParameters: the view its schema row names (``explain``), or
    for a front-end's own type the view of its front-end (``explain_<kind>``)."""
    assert document.message is not None
    row = schema.row_of(document.message)
    assert row is not None, f"explain shows no {type(document.message)}"
    # A front-end's own type: its views' `explain_<kind>`.
    view: Callable[[Document, SpecFacts | None], tuple[str, list[str]]] | None = (
        globals()[row.explain] if row.explain else explain_of(row.kind)
    )
    assert view is not None, f"explain shows no {type(document.message)}"
    header, lines = view(document, facts)
    return text_of([header, "", *lines])


# The views schema rows name: each returns the header and the lines of its type's explanation.


def explain_optimizer(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """An OptimizationParameters: the settings of that one optimizer."""
    message = document.message
    assert isinstance(message, OptimizationParameters), type(message)
    return f"{document.name} (OptimizationParameters: one table's optimizer)", _optimizer(message)


def explain_spec(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """A spec: the tables of the config it compiles to, and its SparseCore layout if it has
    one."""
    message = document.message
    assert isinstance(message, EmbeddingSpec), type(message)
    assert facts is not None and facts.spec is message, "a spec is explained with its facts"
    compiled = facts.compiled
    schedules = {tag: name for name, tag in compiled.tags.items()}
    header = f"{document.name} (compiled as TensorFlow would)"
    if message.HasField("sparse_core"):
        # TPUEmbeddingV2 builds no TPUEmbeddingConfiguration: the table shows each table's
        # optimizer; its sizes are TPUEmbedding's (padded to the hosts), not SparseCore's.
        header = (
            f"{document.name} (each table's optimizer as TensorFlow compiles it; "
            "the SparseCore layout follows)"
        )
    lines = config_tables(compiled.config, schedules)
    if message.HasField("sparse_core"):
        from tpuemb_cli.views.sparsecore import explain_stacking

        lines += [
            "",
            *textwrap.wrap(SPARSECORE_ROWS, 100),
            "",
            *explain_stacking(message, facts.layout, facts.sparsecore_memory),
        ]
    return header, lines


def explain_config(document: Document, facts: SpecFacts | None) -> tuple[str, list[str]]:
    """A config: its tables."""
    message = document.message
    assert isinstance(message, TPUEmbeddingConfiguration), type(message)
    return document.name, config_tables(message, {})
