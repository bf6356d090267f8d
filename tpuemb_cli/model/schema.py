"""The message types tpuemb reads: one row each, with everything that is the type's own -- every
name a user may give it, the kind of document it is (which decides the rules the engine runs on
it), what tells its content from other files' and in what order it is tried against them, and
what `tpuemb explain` shows of it. The loader, the engine and explain read the rows: adding a
type is its proto, `make generate` and one row here.

The rows are data -- field names, order numbers, texts -- and, for what data cannot say, the
names of functions the layers above resolve: checks of content in ``load/signatures``, explain's
views in ``views/explain``. Nothing here imports them, nor a generated module before a type
is used.
"""

from __future__ import annotations

import importlib
from functools import cache

from google.protobuf.message import Message

from tpuemb_cli.frontends import front_ends
from tpuemb_cli.model.message_type import MessageType

__all__ = ["BY_NAME", "TYPES", "MessageType", "kind_of", "lookup", "resolve", "row_of"]

# What explain shows: the types with an `explain` view.
_EXPLAINED = "explain shows a config, a spec, an optimizer, JAX stacks or a Keras-RS model"

TYPES: tuple[MessageType, ...] = (
    MessageType(
        "TPUEmbeddingConfiguration",
        "tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2",
        "config",
        packages=("tpuemb.tpu", "tensorflow.tpu"),
        signature=frozenset({"table_descriptor", "feature_descriptor"}),
        text_order=1,
        binary_order=1,
        mapping_order=1,
        binary_fields=("table_descriptor",),
        binary_missing="no `table_descriptor`",
        explain="explain_config",
    ),
    MessageType(
        "OptimizationParameters",
        "tpuemb_cli.pb.tpu.optimization_parameters_pb2",
        "optimizer",
        packages=("tpuemb.tpu", "tensorflow.tpu"),
        signature_oneof="parameters",  # any optimizer algorithm
        text_order=2,
        binary_order=3,
        mapping_order=2,
        binary_missing="no optimization algorithm",
        explain="explain_optimizer",
        memory_refusal=(
            "an OptimizationParameters belongs to no table: --memory needs a config or a spec"
        ),
    ),
    MessageType(
        "EmbeddingSpec",
        "tpuemb_cli.pb.spec.embedding_spec_pb2",
        "spec",
        packages=("tpuemb.spec",),
        signature=frozenset({"tables", "features"}),
        mapping_order=3,
        explain="explain_spec",
    ),
    MessageType(
        "GraphDef",
        "tpuemb_cli.pb.framework.graph_pb2",
        "graph",
        packages=("tpuemb.framework", "tensorflow"),
        signature=frozenset({"node"}),
        text_order=3,
        binary_order=2,
        text_check="graph_nodes",
        text_unlike="its `node`s are not TensorFlow graph nodes (no `op`)",
        text_leads=("node", "library", "versions"),
        binary_fields=("node", "name", "op"),
        binary_missing="no `node` with a name and an op",
        binary_sniff="graph_bytes",
        explain_refusal=(
            f"a GraphDef: {_EXPLAINED}; `tpuemb check` lints a graph's TPU embedding ops and "
            "their configs"
        ),
    ),
    MessageType(
        "SavedModel",
        "tpuemb_cli.pb.framework.saved_model_pb2",
        "saved_model",
        packages=("tpuemb.framework", "tensorflow"),
        file_name="saved_model.pb",
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
        packages=("tpuemb.tpu", "tensorflow.tpu"),
        signature=frozenset({"tables"}),
        text_order=4,
        binary_order=4,
        # A spec in text format has `tables` too, but never a layout's field names.
        text_check="layout_fields",
        text_unlike="its `tables` are not SparseCore layouts (no `table_name`)",
        text_leads=("tables",),
        lead_check="layout_fields",
        binary_fields=("tables", "table_name", "stacked_table_name"),
        binary_missing="no `tables` with a table_name and a stacked_table_name",
        binary_sniff="layouts_bytes",
        explain_refusal=(
            f"SparseCore layouts: {_EXPLAINED}; `tpuemb convert` shows the layouts as text"
        ),
    ),
)
# The front-ends' own types (each front-end's record's `types`), after tpuemb's.
TYPES += tuple(row for front_end in front_ends() for row in front_end.types)
BY_NAME = {row.name: row for row in TYPES}

DEFAULT_TYPE = "TPUEmbeddingConfiguration"
# YAML is for specs: TensorFlow writes no YAML configs.
DEFAULT_YAML_TYPE = "EmbeddingSpec"


def _short(name: str) -> str:
    """``name`` without the package of a full name (any row's: TensorFlow's and ours mean the
    same message)."""
    short = name.strip()
    if short in BY_NAME:
        return short
    packages = {f"{package}." for row in TYPES for package in row.packages}
    for package in sorted(packages, key=len, reverse=True):  # tensorflow.tpu. before tensorflow.
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
    # (Importing a module imports its package first: tpuemb_cli.pb.framework loads the graph
    # protos inside the gencode-warning guard.)
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


@cache
def signature(name: str) -> frozenset[str]:
    """The signature fields of the type ``name``: its row's, and every field of its
    ``signature_oneof`` (read from the descriptor, so the first call imports its module)."""
    row = BY_NAME[name]
    if not row.signature_oneof:
        return row.signature
    oneof = resolve(name).DESCRIPTOR.oneofs_by_name[row.signature_oneof]
    return row.signature | frozenset(field.name for field in oneof.fields)


def tried(encoding: str) -> tuple[MessageType, ...]:
    """The types a file in ``encoding`` ("text", "binary" or "mapping": JSON and YAML) is tried
    as, in their rows' order for it."""
    global _TRIED_FROM
    if _TRIED_FROM is not TYPES:  # the rows changed (a test adds one): the orders follow
        _TRIED.clear()
        _TRIED_FROM = TYPES
    found = _TRIED.get(encoding)
    if found is None:
        order = f"{encoding}_order"
        found = tuple(
            sorted((row for row in TYPES if getattr(row, order)), key=lambda r: getattr(r, order))
        )
        _TRIED[encoding] = found
    return found


_TRIED: dict[str, tuple[MessageType, ...]] = {}
_TRIED_FROM: tuple[MessageType, ...] = ()


def header_name(name: str) -> str:
    """The full name a `# proto-message:` header gives the type ``name``: TensorFlow's for the
    messages we mirror from TensorFlow (its own textprotos name them so), ours for the others
    (its row's packages: our mirror's first, TensorFlow's last)."""
    row = lookup(name)
    return f"{row.packages[-1]}.{row.name}"
