"""The sides of a SparseCore comparison: a SparseCore spec laid out as ``compile --target
sparsecore`` lays it out, or a TPUEmbeddingV2 checkpoint read from its index (its stacked
variables) and its ``_sparse_core_table_layouts`` string (the layouts it was saved with)."""

from __future__ import annotations

from typing import Any, NamedTuple

from google.protobuf.message import DecodeError

from tpuemb_cli.compat.layouts import CannotCompare
from tpuemb_cli.frontends.tensorflow.compat.stacks import (
    SparseCoreState,
    StackVariable,
    layouts_by_stack,
    spec_state,
)
from tpuemb_cli.load import Document
from tpuemb_cli.load.checkpoint import Checkpoint, UnreadableCheckpoint, objects
from tpuemb_cli.load.checkpoint_strings import read_string
from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.words import ticked
from tpuemb_cli.pb.layouts import SparseCoreTableLayout, SparseCoreTableLayouts

# The key TPUEmbeddingV2 saves its layouts under (SPARSECORE_LAYOUTS_CHECKPOINT_KEY in
# tensorflow/python/tpu/tpu_embedding_v3_utils.py, v2.21.0).
LAYOUTS_KEY = "_sparse_core_table_layouts"


class SparseCoreSide(NamedTuple):
    """One side of a comparison: a SparseCore spec's checkpoint (``tables``: each table's path in
    the spec, ``first_feature``: the first flattened feature's), or a checkpoint's (``document``
    the spec it is compared with, ``tables`` empty: what it holds has no place of its own)."""

    document: Document
    state: SparseCoreState
    tables: dict[str, FieldPath]
    first_feature: FieldPath = ()
    topology: FieldPath = ("topology",)

    @property
    def file(self) -> str:
        return self.document.name

    def file_path(self, path: FieldPath) -> FieldPath:
        return path

    def place(self, path: FieldPath) -> tuple[FieldPath, Position | None]:
        return self.document.located(path)


def spec_side(document: Document, facts: Any) -> SparseCoreSide:
    """The checkpoint a SparseCore spec writes; CannotCompare when it cannot be laid out."""
    from tpuemb_cli.spec.facts import facts_for
    from tpuemb_cli.spec.sparsecore import Plan

    found = facts_for(document, facts)
    plan = found.layout if found is not None else None
    if not isinstance(plan, Plan):
        why = f": {plan}" if plan is not None else ""
        raise CannotCompare(f"{document.name}: cannot compare: it cannot be laid out{why}")
    spec = found.spec if found is not None else None
    assert spec is not None
    tables: dict[str, FieldPath] = {
        name: ("tables", layout.spec_index) for name, layout in plan.tables.items()
    }
    return SparseCoreSide(
        document,
        spec_state(spec, plan),
        tables,
        ("features", plan.quirk.first_feature),
        ("topology",),
    )


def checkpoint_side(
    document: Document, checkpoint: Checkpoint, prefix: str | None
) -> SparseCoreSide:
    """What ``checkpoint`` holds of a TPUEmbeddingV2 under ``prefix`` (found when None: the
    one object holding ``_sparse_core_table_layouts``), compared with ``document``'s spec."""
    holders = objects(checkpoint)
    if prefix is not None:
        where = prefix.strip("/")
        if where not in holders or LAYOUTS_KEY not in holders[where]:
            raise CannotCompare(
                f"{checkpoint.path}: no object `{where}` holds TPUEmbeddingV2's `{LAYOUTS_KEY}`"
            )
    else:
        found = sorted(path for path, held in holders.items() if LAYOUTS_KEY in held)
        if not found:
            raise CannotCompare(
                f"{checkpoint.path}: cannot compare with {document.name}, a SparseCore spec: the "
                f"checkpoint holds no `{LAYOUTS_KEY}`, which every TPUEmbeddingV2 checkpoint "
                "holds (was it saved by TPUEmbedding, or TPUEmbeddingForServing?)"
            )
        if len(found) > 1:
            shown = ticked(found)
            raise CannotCompare(
                f"{checkpoint.path}: TPUEmbeddingV2 state under {len(found)} objects ({shown}): "
                "say which one is this spec's (--checkpoint-prefix)"
            )
        where = found[0]
    held = holders[where]
    key = f"{where}/{LAYOUTS_KEY}" if where else LAYOUTS_KEY
    try:
        data = read_string(checkpoint, f"{key}/.ATTRIBUTES/VARIABLE_VALUE")
        layouts = SparseCoreTableLayouts.FromString(data)
    except UnreadableCheckpoint as problem:
        raise CannotCompare(str(problem)) from None
    except DecodeError:
        raise CannotCompare(
            f"{checkpoint.path}: `{key}` does not hold SparseCoreTableLayouts"
        ) from None
    for layout in layouts.tables:
        why = _unusable(layout)
        if why:
            raise CannotCompare(
                f"{checkpoint.path}: `{key}` holds a layout TPUEmbeddingV2 does not write "
                f"(table {layout.table_name!r}: {why})"
            )
    by_name = {layout.table_name: layout for layout in layouts.tables}
    stacks = {}
    for name, members in layouts_by_stack(by_name).items():
        variable = held.get(name)
        if variable is None or len(variable.shape) != 2:
            continue  # the stack's variable is missing: the new side's stack gets nothing
        slots = tuple(
            sorted(local[len(name) + 1 :] for local in held if local.startswith(f"{name}/"))
        )
        stacks[name] = StackVariable(
            name,
            (variable.shape[0], variable.shape[1]),
            tuple(m.table_name for m in members),
            slots,
            None,
        )
    return SparseCoreSide(document, SparseCoreState(stacks, by_name), {})


def _unusable(layout: SparseCoreTableLayout) -> str:
    """Why a layout read from a checkpoint cannot be one TensorFlow wrote ("": it can)."""
    if not layout.table_name or not layout.stacked_table_name:
        return "no table or stack name"
    if len(layout.unsharded_shape) != 2 or len(layout.unsharded_padded_shape) != 2:
        return "a shape that is not [rows, dim]"
    if min(*layout.unsharded_shape, *layout.unsharded_padded_shape) < 0:
        return "a negative size"
    if layout.num_sparse_cores < 1 or layout.num_partitions < 1:
        return "no SparseCores or no partitions"
    return ""
