"""The one memory interface (issue 37, point 2b, first part): the record every front-end's memory
model is turned into for ``explain --memory``. Each model's adapter (``model/memory_record``,
``spec/sparsecore_memory_record``, ``spec/jax_memory_record``, ``spec/keras_memory_record``) builds
it; ``views/memory_json`` renders any record, naming no ecosystem. What a document holds beyond its
head differs by model (cores, SparseCores, devices, layers), so the adapter supplies those fields
as data, in the order the document has always written them -- the renderer adds no field."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JSON_VERSION = 1  # the version of every --memory JSON document


@dataclass(frozen=True)
class MemoryReport:
    """One ``--memory`` report: the engine it models and the file, then the model's fields."""

    engine: str  # "tensorcore", "sparsecore", "jax", "keras": the document's ``engine``
    file: str  # the document's name, as given
    # The document's fields after ``file``, in their order (insertion order is kept).
    fields: dict[str, Any] = field(default_factory=dict)
    version: int = JSON_VERSION

    def document(self) -> dict[str, Any]:
        """The JSON document: ``version``, ``engine``, ``file``, then ``fields``."""
        return {"version": self.version, "engine": self.engine, "file": self.file, **self.fields}
