"""``explain`` of a TorchRecSpec: the collection (its optimizer, the learning rate every stack
gets, its batch), then each stack torchrec makes, a SparseCore's rows of it, its tables'
padding, row offsets and shard rotations, as ``StackedSparseCoreEmbeddingConfig`` holds them."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.torchrec.spec.memory import learning_rate
from tpuemb_cli.frontends.torchrec.spec.stacking import (
    BAG_COLLECTION,
    DEFAULT_BATCH,
    DEFAULT_DEVICES,
    DEFAULT_SPARSECORES,
    Stack,
    stack,
    value,
)
from tpuemb_cli.model.words import plural, printable


def explain(name: str, spec: Any) -> tuple[str, list[str]]:
    stacking = stack(spec)
    topology = spec.collection if spec.HasField("collection") else spec.prepare
    devices = value(topology, "global_device_count", DEFAULT_DEVICES)
    per_device = value(topology, "num_sc_per_device", DEFAULT_SPARSECORES)
    what = (
        (spec.collection.type or BAG_COLLECTION)
        if spec.HasField("collection")
        else ("prepare_tables_for_stacking")
    )
    header = (
        f"{printable(name)}: TorchRec ({printable(what)}), {plural(len(spec.tables), 'table')} "
        f"on {plural(devices, 'device')} of {per_device} SparseCores"
    )
    lines: list[str] = []
    if spec.HasField("collection"):
        collection = spec.collection
        optimizer = collection.optimizer.type or "none given"
        lines.append(
            f"collection: optimizer {printable(optimizer)}, learning rate "
            f"{learning_rate(collection.optimizer.kwargs):g} a stack, batch_size "
            f"{value(collection, 'batch_size', DEFAULT_BATCH)}"
            + (", auto_stack" if collection.auto_stack else "")
        )
    if stacking.refusal is not None:
        refusal = stacking.refusal
        lines.append(
            f"torchrec refuses it: {refusal.call} raises {refusal.type}: "
            f"{printable(refusal.message)}"
        )
        return header, lines
    for made in stacking.stacks:
        lines.append(
            f"stack {printable(made.name)}: {made.stack_num_embeddings:,} rows x "
            f"{made.stack_embedding_dim} ({plural(len(made.tables), 'table')}, "
            f"{made.num_sparsecores} SparseCores of {_each(made)} rows, sample multiplier "
            f"{made.total_sample_count_multiplier})"
        )
        for place in made.tables:
            table = spec.tables[place.table]
            lines.append(
                f"  {printable(place.name)}: {table.num_embeddings:,} x {table.embedding_dim} "
                f"-> padded {place.padded_vocab_size:,} x {place.padded_embedding_dim}, rows "
                f"{place.row_offset_in_shard:,}.. of each SparseCore's shard, rotation "
                f"{place.shard_rotation}"
            )
    for warning in stacking.warnings:
        lines.append(f"torchrec logs: {printable(warning)}")
    return header, lines


def _each(made: Stack) -> str:
    """A SparseCore's rows of the stack (its rows split evenly over them)."""
    if made.num_sparsecores <= 0:
        return "no"
    return f"{made.stack_num_embeddings // made.num_sparsecores:,}"
