"""What a TPUEmbeddingV2 checkpoint holds for a SparseCore spec: its stacked variables and the
layouts it saves beside them.

``TPUEmbeddingV2._create_variables`` (tensorflow/python/tpu/tpu_embedding_v3.py, v2.21.0:
https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py)
creates, per stack, one variable named after the stack (its members' names joined with ``_``) of
shape (sum of the members' padded vocabularies, padded width), and one per slot name of the
stack's optimizer, ``<stack>/<slot>``, of that shape; ``_track_restore_info_for_cpu`` saves the
``SparseCoreTableLayouts`` (one per table, by table name) as the string variable
``_sparse_core_table_layouts``. tpuemb does not stack tables here: a spec's stacks and layouts are
``compile --target sparsecore``'s (``spec/sparsecore.plan``), a checkpoint's are read from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from google.protobuf import text_format

from tpuemb_cli.model import optimizers
from tpuemb_cli.pb.layouts import SparseCoreTableLayout
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.spec.compiler import effective_optimizer
from tpuemb_cli.spec.sparsecore import Plan, TableLayout
from tpuemb_cli.spec.sparsecore_state import slot_names


class StackVariable(NamedTuple):
    """A stack as the checkpoint knows it: its variable's name and shape, its members (in the
    order of their rows) and its slot variables (None: not known)."""

    name: str
    shape: tuple[int, int]
    members: tuple[str, ...]
    slots: tuple[str, ...] | None
    optimizer: str | None  # the class of its optimizer (None: not known, a checkpoint's)
    # Its optimizer's settings as one line of text format (None: not known, a checkpoint's).
    settings: str | None = None


class SparseCoreState(NamedTuple):
    """The stacks by name, and each table's layout by table name (``layouts`` None: not known)."""

    stacks: dict[str, StackVariable]
    layouts: dict[str, SparseCoreTableLayout] | None

    def stack_of(self, table: str) -> str | None:
        """The stack ``table`` is a member of, if any."""
        if self.layouts is not None and table in self.layouts:
            return str(self.layouts[table].stacked_table_name)
        return next((s.name for s in self.stacks.values() if table in s.members), None)


def spec_state(spec: EmbeddingSpec, plan: Plan) -> SparseCoreState:
    """What a checkpoint written under ``spec`` (laid out as ``plan``) holds."""
    stacks = {}
    for stack in plan.stacks:
        first = spec.tables[stack.members[0].spec_index]
        optimizer = effective_optimizer(spec, first)
        slots = slot_names(optimizer) if optimizer is not None else ()
        field = optimizer.WhichOneof("algorithm") if optimizer is not None else None
        row = optimizers.of_spec(field)
        stacks[stack.name] = StackVariable(
            stack.name,
            (stack.rows_per_sparse_core * plan.num_sparse_cores, stack.padded_width),
            _by_offset(stack.members),
            slots,
            row.tf_class if row is not None else field,
            text_format.MessageToString(optimizer, as_one_line=True) if optimizer else None,
        )
    layouts = {layout.table_name: layout for layout in plan.checkpoint_layouts.tables}
    return SparseCoreState(stacks, layouts)


def _by_offset(members: Iterable[TableLayout]) -> tuple[str, ...]:
    return tuple(m.name for m in sorted(members, key=lambda m: m.row_offset))


def layouts_by_stack(
    layouts: dict[str, SparseCoreTableLayout],
) -> dict[str, list[SparseCoreTableLayout]]:
    """Each stack's members' layouts in the order of their rows (the checkpoint adapter's
    ``_reorg_layouts``: by ``sparse_core_shard_row_offset``)."""
    stacks: dict[str, list[SparseCoreTableLayout]] = {}
    for layout in layouts.values():
        stacks.setdefault(layout.stacked_table_name, []).append(layout)
    for members in stacks.values():
        members.sort(key=lambda layout: layout.sparse_core_shard_row_offset)
    return stacks
