"""The message types tpuemb reads: one row each, with every name a user may give them and the
kind of document each is (which decides the rules the engine runs on it)."""

from __future__ import annotations

import importlib

from google.protobuf.message import Message

from tpuemb_cli.model.records import Record


class MessageType(Record):
    name: str  # the short name users give (`--type`, `# proto-message:` headers)
    module: str  # the generated module that defines it, imported on first use
    kind: str  # config, optimizer, spec, graph, saved_model or layouts: what the engine runs on it


TYPES: tuple[MessageType, ...] = (
    MessageType(
        "TPUEmbeddingConfiguration", "tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2", "config"
    ),
    MessageType(
        "OptimizationParameters", "tpuemb_cli.pb.tpu.optimization_parameters_pb2", "optimizer"
    ),
    MessageType("EmbeddingSpec", "tpuemb_cli.pb.spec.embedding_spec_pb2", "spec"),
    MessageType("GraphDef", "tpuemb_cli.pb.framework.graph_pb2", "graph"),
    MessageType("SavedModel", "tpuemb_cli.pb.framework.saved_model_pb2", "saved_model"),
    # TPUEmbeddingV2's table layouts on SparseCores (what `compile --target sparsecore` writes and
    # TensorFlow saves in checkpoints): loaded, converted and checked for parse problems only.
    MessageType("SparseCoreTableLayouts", "tpuemb_cli.pb.layouts", "layouts"),
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


def kind_of(message: Message) -> str:
    """The kind of document ``message`` is (see ``MessageType.kind``); "" for another type."""
    row = BY_NAME.get(message.DESCRIPTOR.name)
    return (
        row.kind if row is not None and message.DESCRIPTOR.full_name.startswith("tpuemb.") else ""
    )


def known_names() -> list[str]:
    return [row.name for row in TYPES]


def header_name(name: str) -> str:
    """The full name a `# proto-message:` header gives the type ``name``: TensorFlow's for the
    messages we mirror from TensorFlow (its own textprotos name them so), ours for the others."""
    full: str = resolve(name).DESCRIPTOR.full_name
    for ours, theirs in (("tpuemb.tpu.", "tensorflow.tpu."), ("tpuemb.framework.", "tensorflow.")):
        if full.startswith(ours):
            return theirs + full[len(ours) :]
    return full
