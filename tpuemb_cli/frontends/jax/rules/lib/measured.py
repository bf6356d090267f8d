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

LIBRARY = "jax-tpu-embedding"


def _why_not(found: Any, stack: MeasuredStack, per_partition: bool) -> str:
    """Why a stack's statistics cannot judge its limits, or "" when they can."""
    if found.max_ids_max is None or found.max_unique_ids_max is None:
        missing = "max_ids" if found.max_ids_max is None else "max_unique_ids"
        return f"they hold no {missing} for it"
    if found.max_ids_max == 0:
        return "they counted no id of it"
    if per_partition and stack.num_sparsecores > 0:
        # The library records one value a partition (all the stack's SparseCores) for each
        # local device: counts of another layout have another width.
        widths = {len(row) for row in (*found.max_ids, *found.max_unique_ids)}
        if any(width % stack.num_sparsecores for width in widths):
            shown = ", ".join(str(width) for width in sorted(widths))
            return (
                f"they count {shown} values a row, no multiple of its {stack.num_sparsecores} "
                "partitions (SparseCores): measured for another layout"
            )
    return ""


def _measured(settings: Any, stacks: list[MeasuredStack], per_device: int | None) -> Measured:
    reading = settings.stats
    named = {stack.name for stack in stacks}
    # jax-tpu-embedding's files hold a value a partition; the other library's CSV one a table.
    per_partition = str(reading.source).startswith("jax")
    paired, unjudged = [], []
    for stack in stacks:
        found = reading.stacks.get(stack.name)
        if found is None:
            paired.append(stack)
            continue
        why = _why_not(found, stack, per_partition)
        if why:
            unjudged.append((stack.name, why))
            continue
        paired.append(
            stack._replace(
                measured_ids=found.max_ids_max,
                measured_unique_ids=found.max_unique_ids_max,
                measured_buffer_per_sc=found.required_buffer_size_max,
            )
        )
    return Measured(
        settings.stats_path or str(reading.files[0] if reading.files else ""),
        LIBRARY,
        settings.stats_headroom,
        tuple(paired),
        tuple(stack.name for stack in stacks if stack.name not in reading.stacks),
        tuple(sorted(name for name in reading.stacks if name not in named)),
        per_device,
        tuple(unjudged),
    )


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
    return _measured(settings, stacks, per_device)


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
    return _measured(settings, stacks, spec.jax.num_sc_per_device or None)


def _limit(table: Any, field: str) -> int:
    """A table's own limit, the library's default (256) where it sets none."""
    from tpuemb_cli.frontends.jax.spec.stacking import DEFAULT_LIMIT

    return int(getattr(table, field)) if table.HasField(field) else DEFAULT_LIMIT
