"""The message types tpuemb reads: one row each, with every name a user may give them, the kind
of document each is (which decides the rules the engine runs on it) and what `tpuemb explain`
shows of it (the name of a view of formatters/explain, resolved there) or the text it refuses it
with."""

from __future__ import annotations

import importlib

from google.protobuf.message import Message

from tpuemb_cli.model.records import Record


class MessageType(Record):
    name: str  # the short name users give (`--type`, `# proto-message:` headers)
    module: str  # the generated module that defines it, imported on first use
    kind: str  # config, optimizer, spec, graph, saved_model or layouts: what the engine runs on it
    # `tpuemb explain`: the function of formatters/explain that shows it, or else the text it is
    # refused with; and the text `--memory` refuses it with ("": it is shown).
    explain: str = ""
    explain_refusal: str = ""
    memory_refusal: str = ""


# What explain shows: the types with an `explain` view.
_EXPLAINED = "explain shows a config, a spec or an optimizer"

TYPES: tuple[MessageType, ...] = (
    MessageType(
        "TPUEmbeddingConfiguration",
        "tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2",
        "config",
        explain="explain_config",
    ),
    MessageType(
        "OptimizationParameters",
        "tpuemb_cli.pb.tpu.optimization_parameters_pb2",
        "optimizer",
        explain="explain_optimizer",
        memory_refusal=(
            "an OptimizationParameters belongs to no table: --memory needs a config or a spec"
        ),
    ),
    MessageType(
        "EmbeddingSpec", "tpuemb_cli.pb.spec.embedding_spec_pb2", "spec", explain="explain_spec"
    ),
    MessageType(
        "GraphDef",
        "tpuemb_cli.pb.framework.graph_pb2",
        "graph",
        explain_refusal=(
            f"a GraphDef: {_EXPLAINED}; `tpuemb check` lints a graph's TPU embedding ops and "
            "their configs"
        ),
    ),
    MessageType(
        "SavedModel",
        "tpuemb_cli.pb.framework.saved_model_pb2",
        "saved_model",
        explain_refusal=(
            f"a SavedModel: {_EXPLAINED}; `tpuemb check` lints a graph's TPU embedding ops and "
            "their configs"
        ),
    ),
    # TPUEmbeddingV2's table layouts on SparseCores (what `compile --target sparsecore` writes and
    # TensorFlow saves in checkpoints): loaded, converted and checked for parse problems only.
    MessageType(
        "SparseCoreTableLayouts",
        "tpuemb_cli.pb.layouts",
        "layouts",
        explain_refusal=(
            f"SparseCore layouts: {_EXPLAINED}; `tpuemb convert` shows the layouts as text"
        ),
    ),
)
BY_NAME = {row.name: row for row in TYPES}

DEFAULT_TYPE = "TPUEmbeddingConfiguration"
# YAML is for specs: TensorFlow writes no YAML configs.
DEFAULT_YAML_TYPE = "EmbeddingSpec"

# Full names that mean the same message: TensorFlow's packages and ours.
_PACKAGES = ("tensorflow.tpu.", "tpuemb.tpu.", "tpuemb.spec.", "tensorflow.", "tpuemb.framework.")


def _short(name: str) -> str:
    short = name.strip()
    for package in _PACKAGES:
        if short.startswith(package):
            return short[len(package) :]
    return short


def lookup(name: str) -> MessageType:
    """The row for ``name``: ``OptimizationParameters``, ``tensorflow.tpu.…``, ``tpuemb.tpu.…``.

    Raises KeyError with the accepted names when ``name`` is none of them.
    """
    try:
        return BY_NAME[_short(name)]
    except KeyError:
        from tpuemb_cli.model.nearest import did_you_mean, nearest

        known = ", ".join(known_names())
        close = did_you_mean(nearest(_short(name), known_names()))
        raise KeyError(f"unknown message type {name!r}{close} (known: {known})") from None


def resolve(name: str) -> type[Message]:
    """The class for ``name`` (see ``lookup``); raises KeyError for an unknown name."""
    found = _RESOLVED.get(name)  # asked for every file: the import machinery once per type
    if found is not None:
        return found
    row = lookup(name)
    if row.kind in ("graph", "saved_model"):
        import tpuemb_cli.pb.framework  # noqa: F401  (loads the graph protos quietly)
    resolved: type[Message] = getattr(importlib.import_module(row.module), row.name)
    _RESOLVED[name] = resolved
    return resolved


_RESOLVED: dict[str, type[Message]] = {}


def row_of(message: Message) -> MessageType | None:
    """The row of ``message``'s type; None for another type (TensorFlow's own
    TPUEmbeddingConfiguration is not ours)."""
    row = BY_NAME.get(message.DESCRIPTOR.name)
    return row if row is not None and message.DESCRIPTOR.full_name.startswith("tpuemb.") else None


def kind_of(message: Message) -> str:
    """The kind of document ``message`` is (see ``MessageType.kind``); "" for another type."""
    row = row_of(message)
    return row.kind if row is not None else ""


def known_names() -> list[str]:
    return [row.name for row in TYPES]
