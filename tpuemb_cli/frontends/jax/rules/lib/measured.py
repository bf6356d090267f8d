"""A JAX document's stacks beside the statistics measured for them (``check --stats``): the
``Measured`` record the statistics rules (rules/stats) judge.

jax-tpu-embedding keys its statistics by stacked table name (``SparseDenseMatmulInputStats``,
`lib/nn/embedding.py
<https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py>`_),
and its preprocessing reads each stack's own limits (``max_ids_per_partition``,
``max_unique_ids_per_partition`` of its ``StackedTableSpec``): a table's own limits count only
in a stack of that one table (``_get_limits_for_stack`` in ``table_stacking.py``). Where a
limit is written, for a fix:

- an EmbeddingSpecProto: the stack's ``stacked_table_specs[i]`` fields (what
  ``update_preprocessing_parameters`` updates, and ``create_proto_from_feature_specs`` writes);
- a spec with a ``jax`` section: a stack of one table, that table's ``jax`` limits; a stack of
  several, ``jax.stack_max_ids_per_partition[<stack>]``, a map entry no fix writes (the finding
  says it in words).
"""

from __future__ import annotations

from typing import Any

from tpuemb_cli.rules.base import Measured, MeasuredStack
from tpuemb_cli.rules.lib.measured import pair

LIBRARY = "jax-tpu-embedding"


def measured_proto(spec: Any, settings: Any, per_device: int | None) -> Measured:
    """The stacks of an EmbeddingSpecProto beside ``settings.stats``."""
    stacks = []
    for index, stack in enumerate(spec.stacked_table_specs):
        at = ("stacked_table_specs", index)
        ignored = tuple(
            (table.table_name, table.max_ids_per_partition, table.max_unique_ids_per_partition)
            for table in stack.table_specs
            if len(stack.table_specs) > 1
            # 0: not written (a proto's default), no limit of the table's own
            and (table.max_ids_per_partition or table.max_unique_ids_per_partition)
            and (table.max_ids_per_partition, table.max_unique_ids_per_partition)
            != (stack.max_ids_per_partition, stack.max_unique_ids_per_partition)
        )
        stacks.append(
            MeasuredStack(
                stack.stack_name,
                at,
                (*at, "max_ids_per_partition"),
                (*at, "max_unique_ids_per_partition"),
                stack.max_ids_per_partition,
                stack.max_unique_ids_per_partition,
                max(stack.num_sparsecores, 0),
                None,
                None,
                ignored,
            )
        )
    return pair(settings, stacks, per_device, LIBRARY)


def measured_spec(spec: Any, facts: Any, settings: Any) -> Measured | None:
    """The stacks of a spec with a ``jax`` section, as the library lays them out, beside
    ``settings.stats``; None when the spec cannot be stacked (its rules say why)."""
    from tpuemb_cli.frontends.jax.spec.layout import layout
    from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError

    try:
        laid = layout(spec, facts.jax_stacking)
    except JaxStackingError:
        return None
    stacks = []
    for stack in laid.stacks.values():
        members = [placed.table for placed in stack.tables]
        buffer = buffer_path = None
        if len(members) == 1:
            at: tuple[Any, ...] = ("tables", members[0], "jax")
            ids_path: Any = (*at, "max_ids_per_partition")
            unique_path: Any = (*at, "max_unique_ids_per_partition")
            ignored: tuple[tuple[str, int, int], ...] = ()
            # A table alone keeps its suggested buffer (a stack of several gets none).
            own = spec.tables[members[0]].jax
            if own.HasField("suggested_coo_buffer_size_per_device"):
                buffer = own.suggested_coo_buffer_size_per_device
                buffer_path = (*at, "suggested_coo_buffer_size_per_device")
        else:
            at = ("tables", members[0])
            ids_path = unique_path = None
            ignored = tuple(
                (
                    spec.tables[index].name,
                    _limit(spec.tables[index].jax, "max_ids_per_partition"),
                    _limit(spec.tables[index].jax, "max_unique_ids_per_partition"),
                )
                for index in members
                if (
                    spec.tables[index].jax.HasField("max_ids_per_partition")
                    or spec.tables[index].jax.HasField("max_unique_ids_per_partition")
                )
                and (
                    _limit(spec.tables[index].jax, "max_ids_per_partition"),
                    _limit(spec.tables[index].jax, "max_unique_ids_per_partition"),
                )
                != (stack.max_ids_per_partition, stack.max_unique_ids_per_partition)
            )
        stacks.append(
            MeasuredStack(
                stack.name,
                at,
                ids_path,
                unique_path,
                stack.max_ids_per_partition,
                stack.max_unique_ids_per_partition,
                laid.num_sparsecores,
                None,
                None,
                ignored,
                buffer,
                buffer_path,
            )
        )
    return pair(settings, stacks, spec.jax.num_sc_per_device or None, LIBRARY)


def _limit(table: Any, field: str) -> int:
    """A table's own limit, the library's default (256) where it sets none."""
    from tpuemb_cli.frontends.jax.spec.stacking import DEFAULT_LIMIT

    return int(getattr(table, field)) if table.HasField(field) else DEFAULT_LIMIT
