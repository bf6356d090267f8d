"""A TorchRec spec's stacks beside the statistics measured for them (``check --stats``): the
``Measured`` record the statistics rules (rules/stats) judge.

torchrec's SparseCore preprocessing records its statistics by stack name (the native backend's
results are named for the stacks: ``SparseCoreInputPreprocessor``, ``datasets/
input_preprocessing.py``), in the CSV its FDO client writes (``table_name,max_ids,max_unique_ids,
dropped_count``), and limits each stack by the largest of its tables' limits
(``StackedSparseCoreEmbeddingConfig.max_ids_per_partition``, ``modules/embedding_configs.py``).
A stack of one table has its limits in that table's fields, which a fix writes; a stack of
several has them as its tables' largest, which the finding says in words.
"""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.torchrec.rules.lib.facts import Facts
from tpuemb_cli.frontends.torchrec.spec.stacking import DEFAULT_LIMIT
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.rules.base import Measured, MeasuredStack
from tpuemb_cli.rules.lib.measured import pair

LIBRARY = "torchrec"
# What torchrec does past a limit is its native preprocessing's, which no wheel ships: not seen.
OVERFLOW = (
    "torchrec's SparseCore preprocessing cannot hold the rest (its native module is not in "
    "torchrec 1.9.2's wheel, so whether it drops them or fails is not known to tpuemb)"
)
_LIMITS = ("max_ids_per_partition", "max_unique_ids_per_partition")


def _limit(table: Any, field: str) -> int:
    return int(getattr(table, field)) if table.HasField(field) else DEFAULT_LIMIT


def measured_torchrec(spec: Any, facts: Facts, settings: Any) -> Measured | None:
    """The stacks torchrec makes of ``spec`` beside ``settings.stats``; None when it refuses
    them (its rules say why)."""
    if facts.stacking.refusal is not None:
        return None
    stacks = []
    for stack in facts.stacking.stacks:
        members = [place.table for place in stack.tables]
        tables = [spec.tables[i] for i in members]
        ids = max(_limit(t, _LIMITS[0]) for t in tables)
        unique = max(_limit(t, _LIMITS[1]) for t in tables)
        buffers = [
            t.suggested_coo_buffer_size_per_device
            for t in tables
            if t.HasField("suggested_coo_buffer_size_per_device")
        ]
        at: FieldPath = ("tables", members[0])
        ids_path: FieldPath | None = None
        unique_path: FieldPath | None = None
        buffer_path: FieldPath | None = None
        ignored: tuple[tuple[str, int, int], ...] = ()
        if len(members) == 1:
            ids_path, unique_path = (*at, _LIMITS[0]), (*at, _LIMITS[1])
            if buffers:
                buffer_path = (*at, "suggested_coo_buffer_size_per_device")
        else:
            ignored = tuple(
                (t.name, _limit(t, _LIMITS[0]), _limit(t, _LIMITS[1]))
                for t in tables
                if (_limit(t, _LIMITS[0]), _limit(t, _LIMITS[1])) != (ids, unique)
            )
        stacks.append(
            MeasuredStack(
                stack.name,
                at,
                ids_path,
                unique_path,
                ids,
                unique,
                stack.num_sparsecores,
                None,
                None,
                ignored,
                max(buffers) if buffers else None,
                buffer_path,
            )
        )
    return pair(settings, stacks, facts.per_device, LIBRARY, OVERFLOW)
