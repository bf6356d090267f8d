"""The one memory interface (issue 37, point 2b): the record every front-end's memory model is
turned into for ``explain --memory``. Each model's adapter builds it (``model/memory_record``,
``spec/sparsecore_memory_record``, ``frontends/jax/spec/memory_record``; Keras-RS's in
``frontends/keras/views/model``);
``views/memory_text`` and ``views/memory_json`` render any record, naming no ecosystem. What a
report says differs by model (cores, SparseCores, devices, layers; its wording), so the adapter
supplies it as data: the JSON fields in the order the document has always written them, the
text's heading, engine line, table, notes and verdict words -- the renderers add none."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tpuemb_cli.model.memory import WARNING_PERCENT
from tpuemb_cli.model.words import printable

JSON_VERSION = 1  # the version of every --memory JSON document
NAME_WIDTH = 40  # a stacked name joins its members' names: longer ones are cut in the table


def cut(name: str) -> str:
    """``name`` escaped, cut to ``NAME_WIDTH`` characters (a table's column)."""
    name = printable(name)
    return name[: NAME_WIDTH - 3] + "..." if len(name) > NAME_WIDTH else name


def budget_for(used: int, hbm: int) -> int | None:
    """The budget a report's advice aims at: all of the HBM when ``used`` does not fit, 80% of it
    (``WARNING_PERCENT``) when it fits with too little room, None when it fits (no advice)."""
    budget = hbm * WARNING_PERCENT // 100
    if used > hbm:
        return hbm
    if used > budget:
        return budget
    return None


@dataclass(frozen=True)
class ChipVerdict:
    """The figures against a chip's HBM, and the model's words for them: ``TPU {chip}: {hbm} of
    HBM a {unit}{unit_note}; the {what} take {share} of it``, the ``notes``, the verdict ("does
    not fit: {exceeded}. What would {ask}:"), then -- when it does not fit or leaves too little
    room -- the ``advice`` lines (the adapter writes them for ``budget_for``'s budget)."""

    chip: str
    hbm: int | None  # None: the chip's HBM is not known
    used: int = 0
    unit: str = "core"
    unit_note: str = ""
    what: str = "tables"
    notes: tuple[str, ...] = ()
    exceeded: str = ""
    ask: str = ""
    advice: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemoryReport:
    """One ``--memory`` report: the engine it models and the file, then the model's fields."""

    engine: str  # "tensorcore", "sparsecore", "jax", "keras": the document's ``engine``
    file: str  # the document's name, as given
    # The document's fields after ``file``, in their order (insertion order is kept).
    fields: dict[str, Any] = field(default_factory=dict)
    version: int = JSON_VERSION
    # The text report, its wording as data. ``prose``: a report that is only prose (nothing to
    # lay out: no cores, no layout), written as it is; otherwise a heading, the engine line, the
    # table (``columns``, ``rows`` of escaped cells, and when ``shares`` is given a share column
    # with its bar), the ``notes`` after it, then the ``verdict`` lines and ``chip``'s.
    prose: str | None = None
    heading: str = ""
    engine_line: str = ""
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    shares: tuple[float, ...] | None = None
    notes: tuple[str, ...] = ()
    verdict: tuple[str, ...] = ()
    chip: ChipVerdict | None = None
    # A report made of others' (a Keras-RS model's layers, each in its library's model): after
    # the heading, each part's lines then its report, a blank line before each part.
    parts: tuple[tuple[tuple[str, ...], MemoryReport], ...] = ()

    def document(self) -> dict[str, Any]:
        """The JSON document: ``version``, ``engine``, ``file``, then ``fields``."""
        return {"version": self.version, "engine": self.engine, "file": self.file, **self.fields}
