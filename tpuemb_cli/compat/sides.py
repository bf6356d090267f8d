"""One side of a comparison: a config, or a spec and the config it compiles to; its tables as
checkpoints know them; and where a config field lies in the side's own file."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tpuemb_cli.load import Document
from tpuemb_cli.model import schema
from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration
from tpuemb_cli.spec.compiler import Compiled

if TYPE_CHECKING:
    from tpuemb_cli.spec.facts import SpecFacts


class Table(NamedTuple):
    """A table as its checkpoint variables know it.

    ``name`` is the variables' name: the config's, or ``table_<position>`` when the table has none
    (TensorFlow's default, which the config then also holds). ``unnamed``: named by position, so
    that a table inserted before it renames it. ``rows`` is the variables' first dimension when
    it is known (from a spec); a config holds only ``vocabulary`` padded to the host count.
    """

    position: int  # in table_descriptor
    name: str
    unnamed: bool
    vocabulary: int
    rows: int | None
    dim: int
    optimizer: str | None  # OptimizationParameters' `parameters` oneof field
    features: tuple[str, ...]  # the names of the features that look it up

    @property
    def path(self) -> FieldPath:
        return ("table_descriptor", self.position)


class Side(NamedTuple):
    document: Document
    config: TPUEmbeddingConfiguration
    compiled: Compiled | None
    tables: list[Table]

    @property
    def file(self) -> str:
        return self.document.name

    def file_path(self, path: FieldPath) -> FieldPath:
        """The field at config ``path`` in this side's file terms."""
        return self.compiled.spec_path(path) if self.compiled is not None else path

    def place(self, path: FieldPath) -> tuple[FieldPath, Position | None]:
        """The field at config ``path`` in this side's file terms, and its position there (None
        for binary input)."""
        return self.document.located(self.file_path(path))


class NotComparable(Exception):
    """A document that is not a config or a spec (a graph, a bare OptimizationParameters)."""


def side_of(document: Document, facts: SpecFacts | None = None) -> Side:
    """The side ``document`` is; raises NotComparable for a document of another kind. The
    document must have parsed (``document.message`` is set); ``facts``: a spec's, compiled
    once for its lint and its comparison (None: the caller has none, and the document's are
    made by ``facts_of``, the one constructor; another spec's raise ValueError)."""
    message = document.message
    assert message is not None
    kind = schema.kind_of(message)
    compiled, spec_tables = None, None
    if isinstance(message, EmbeddingSpec) and kind == "spec":
        from tpuemb_cli.spec.facts import facts_for

        facts = facts_for(document, facts)
        assert facts is not None  # a spec's
        compiled = facts.compiled
        config = compiled.config
        # (name as written, vocabulary_size before padding) of the spec table behind each table
        spec_tables = [
            (message.tables[i].name, message.tables[i].vocabulary_size)
            for i in compiled.table_sources
        ]
    elif isinstance(message, TPUEmbeddingConfiguration):
        config = message
    else:
        raise NotComparable(
            f"{document.name}: holds a message of type {message.DESCRIPTOR.name}, not a "
            "TPUEmbeddingConfiguration or an embedding spec: it has no checkpoint layout to compare"
        )
    return Side(document, config, compiled, _tables(config, spec_tables))


def _tables(
    config: TPUEmbeddingConfiguration, spec_tables: list[tuple[str, int]] | None
) -> list[Table]:
    features: dict[int, list[str]] = {}
    for feature in config.feature_descriptor:
        if feature.name:
            features.setdefault(feature.table_id, []).append(feature.name)
    tables = []
    for index, descriptor in enumerate(config.table_descriptor):
        default = f"table_{index}"
        rows = None
        if spec_tables is not None:
            source = spec_tables[index]
            unnamed, rows = not source[0], source[1]
        else:
            unnamed = descriptor.name in ("", default)
        parameters = descriptor.optimization_parameters
        tables.append(
            Table(
                index,
                descriptor.name or default,
                unnamed,
                descriptor.vocabulary_size,
                rows,
                descriptor.dimension,
                parameters.WhichOneof("parameters"),
                tuple(features.get(index, ())),
            )
        )
    return tables
