"""The one memory interface (issue 37, point 2b): the record every front-end's memory model is
turned into for ``explain --memory``. Each model's adapter builds it (``model/memory_record``,
``spec/sparsecore_memory_record``, ``frontends/jax/spec/memory_record``; Keras-RS's in
``frontends/keras/views/model``);
``views/memory_text`` and ``views/memory_json`` render any record, naming no ecosystem. What a
report says differs by model (cores, SparseCores, devices, layers; its wording), so the adapter
supplies it as data: the JSON fields in the order the document has always written them, the
text's heading, engine line, table, notes and verdict words -- the renderers add none."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
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

    @property
    def status(self) -> str:
        """``fits``, ``near`` (fits with less than 20% left), ``does-not-fit``, or ``unknown``
        (the chip's HBM is not known)."""
        if self.hbm is None:
            return "unknown"
        if self.used > self.hbm:
            return "does-not-fit"
        if budget_for(self.used, self.hbm) is not None:
            return "near"
        return "fits"


@dataclass(frozen=True)
class StackSummary:
    """One stack of a layout, as the reports draw it: its member tables, its rows (padded), its
    bytes over the whole slice (every array, every unit) and the part of them padding adds;
    ``padding_rows`` when the model counts them apart (None: padding is rows and widths);
    ``padding_bytes`` None when the model does not tell padding apart."""

    name: str
    tables: tuple[str, ...]
    rows: int
    bytes: int
    padding_bytes: int | None
    padding_rows: int | None = None


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
    # Why the named TPU cannot run the document at all (no SparseCores for a SparseCore layout,
    # TensorFlow on TPU7x): the status is ``cannot-run``, whatever the figures.
    cannot_run: str = ""
    # The named slice is not the one the document is laid out for: the figures are the
    # document's, not the slice's (a config's num_tensor_cores, a collection's device count).
    mismatch: str = ""
    stacks: tuple[StackSummary, ...] = ()
    # Why the model gives no figures for the TPU named, when it gives none (a Keras-RS layer
    # whose tables all stay on the TensorCores): the status is ``not-sized``.
    unsized: str = ""
    # The accelerator named (``v5p-16``, ``v5p``), or "" when none was.
    accelerator: str = ""
    # The figure the verdict is about, with or without a chip: bytes on the fullest ``unit``
    # ("core", "SparseCore", "device", "chip"), and what they are made of, (label, bytes)
    # summing to ``used``: "parameters", "optimizer state", "input buffers", "padding"... (the
    # reports' stacked bars; the headroom is the HBM less ``used``).
    unit: str = ""
    used: int | None = None
    breakdown: tuple[tuple[str, int], ...] = ()

    @property
    def status(self) -> str:
        """The verdict against the named TPU: ``cannot-run``, ``not-sized`` (no TPU named, or
        the model could not size the document for it), else its chip verdict's
        (``ChipVerdict.status``). A report of parts (layers on the same devices) is judged by
        the sum of its sized parts' figures against the HBM: parts that fit one by one may not
        fit together; a part that cannot run makes the whole unable to."""
        if self.cannot_run:
            return "cannot-run"
        if self.unsized:
            return "not-sized"
        if self.parts:
            statuses = [part.status for _, part in self.parts]
            if "cannot-run" in statuses:
                return "cannot-run"
            sized = [part for _, part in self.parts if part.status != "not-sized"]
            if not sized:
                return "not-sized"
            chip = next((part.chip for part in sized if part.chip is not None), None)
            if self.used is None or chip is None:
                return worst(part.status for part in sized)
            return ChipVerdict(chip.chip, chip.hbm, self.used).status
        return self.chip.status if self.chip is not None else "not-sized"

    @property
    def why_not_sized(self) -> str:
        """Why the report has no figures for the TPU ("" when it has them): its own reason, or
        for a report of parts none of which is sized, its first part's."""
        if self.unsized or not self.parts:
            return self.unsized if self.status == "not-sized" else ""
        if self.status != "not-sized":
            return ""
        return next((part.why_not_sized for _, part in self.parts if part.why_not_sized), "")

    def summary(self) -> dict[str, Any]:
        """What every report says the same way, whatever its model: the ``summary`` of the JSON
        document, which the HTML and Markdown reports and the sweep read (made once: a copy
        each call). A report of parts (a Keras-RS model's layers) sums its parts' figures and
        breakdowns; their stacks are in ``layers``."""
        return dict(self._summary)

    @cached_property
    def _summary(self) -> dict[str, Any]:
        layers = [{"file": part.file, **part.summary()} for _, part in self.parts]
        chip = self.chip or next((part.chip for _, part in self.parts if part.chip), None)
        used = self.used if self.used is not None else self.chip.used if self.chip else None
        hbm = chip.hbm if chip is not None else None
        unit = self.unit or (chip.unit if chip is not None else "")
        breakdown: dict[str, int] = {}
        for label, n in self.breakdown or [
            (part["label"], part["bytes"]) for layer in layers for part in layer["breakdown"]
        ]:
            breakdown[label] = breakdown.get(label, 0) + n
        return {
            "accelerator": self.accelerator or None,
            "chip": chip.chip if chip is not None else None,
            "status": self.status,
            "unit": unit or None,
            "used_bytes": used,
            "hbm_bytes": hbm,
            "share": used / hbm if used is not None and hbm else None,
            "cannot_run": self.cannot_run or None,
            "mismatch": self.mismatch or None,
            "not_sized": self.why_not_sized or None,
            "breakdown": [{"label": label, "bytes": n} for label, n in breakdown.items()],
            "stacks": [
                {
                    "name": stack.name,
                    "tables": list(stack.tables),
                    "rows": stack.rows,
                    "padding_rows": stack.padding_rows,
                    "bytes": stack.bytes,
                    "padding_bytes": stack.padding_bytes,
                }
                for stack in self.stacks
            ],  # a report of parts: each part's stacks are in its layer's summary
            "layers": layers,
        }

    def document(self) -> dict[str, Any]:
        """The JSON document: ``version``, ``engine``, ``file``, then ``fields``, then the
        ``summary`` every model's report has."""
        return {
            "version": self.version,
            "engine": self.engine,
            "file": self.file,
            **self.fields,
            "summary": self.summary(),
        }


# The statuses, best first: a report of parts is as good as its worst.
STATUSES = ("fits", "near", "unknown", "not-sized", "does-not-fit", "cannot-run")


def worst(statuses: Iterable[str]) -> str:
    """The worst of ``statuses`` (``fits`` when there are none)."""
    return max(statuses, key=STATUSES.index, default="fits")
