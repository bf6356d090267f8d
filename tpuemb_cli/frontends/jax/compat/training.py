"""What a change of a stacked layout does to training, where the checkpoint restores: a stack's
optimizer and its settings (0.2.0's protos record them), a table's combiner, a stack's limits
(ids beyond them are dropped) and samples per step, and a table's rows or width that change
within its padding (the stack's entry keeps its shape)."""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.compat.kinds import Change, Value
from tpuemb_cli.frontends.jax.compat.entries import StackVariables, TablePlace, keyed


def training_changes(stored: StackVariables, stack: StackVariables) -> Iterator[Change]:
    """What restores but trains differently: the optimizer and its settings, the combiner, the
    limits, the samples per step, vocabularies and dimensions that stay within the padding."""
    if stored.optimizer and stack.optimizer and stored.optimizer != stack.optimizer:
        path = (*stack.tables[0].path, "optimizer", "type") if stack.tables else stack.path
        yield Change(
            "training-change",
            stack.name,
            path,
            stored.optimizer,
            stack.optimizer,
            f"stack `{stack.name}`: the optimizer changes from {stored.optimizer} to "
            f"{stack.optimizer}",
        )
    for field, before, now in (
        ("max_ids_per_partition", stored.max_ids_per_partition, stack.max_ids_per_partition),
        (
            "max_unique_ids_per_partition",
            stored.max_unique_ids_per_partition,
            stack.max_unique_ids_per_partition,
        ),
        ("total_sample_count", stored.total_sample_count, stack.total_sample_count),
    ):
        if before != now:
            what = (
                "samples per step"
                if field == "total_sample_count"
                else "ids a SparseCore sends one partition per step (more are dropped)"
            )
            yield Change(
                "training-change",
                stack.name,
                (*stack.path, field),
                before,
                now,
                f"stack `{stack.name}`: `{field}` changes from {before} to {now} ({what})",
            )
    before_tables = keyed(stored.tables)
    for key, table in keyed(stack.tables).items():
        was = before_tables.get(key)
        if was is None:
            continue
        yield from _table_training(was, table)


def _table_training(was: TablePlace, table: TablePlace) -> Iterator[Change]:
    def change(field: str, before: Value, now: Value, message: str) -> Change:
        return Change(
            "training-change",
            table.name,
            (*table.path, field),
            before,
            now,
            f"table `{table.name}`: {message}",
        )

    same_place = (was.padded_vocab, was.padded_dim) == (table.padded_vocab, table.padded_dim)
    if same_place and was.vocab != table.vocab:
        yield change(
            "vocab_size",
            was.vocab,
            table.vocab,
            f"{was.vocab} -> {table.vocab} rows within its padding ({table.padded_vocab}): the "
            "checkpoint restores; "
            + (
                f"ids {was.vocab}..{table.vocab - 1} start from the padding's initial values"
                if table.vocab > was.vocab
                else f"ids {table.vocab}.. are no longer looked up"
            ),
        )
    if same_place and was.dim != table.dim:
        yield change(
            "embedding_dim",
            was.dim,
            table.dim,
            f"dimension {was.dim} -> {table.dim} within its padding ({table.padded_dim}): the "
            "checkpoint restores; "
            + (
                f"columns {was.dim}..{table.dim - 1} start from the padding's initial values"
                if table.dim > was.dim
                else f"columns {table.dim}.. are no longer read"
            ),
        )
    if was.combiner and table.combiner and was.combiner != table.combiner:
        yield change(
            "combiner",
            was.combiner,
            table.combiner,
            f"the combiner changes from {was.combiner} to {table.combiner}",
        )
    if was.optimizer is not None and table.optimizer is not None:
        old_settings = _settings(was.optimizer)
        new_settings = _settings(table.optimizer)
        for name in sorted(set(old_settings) | set(new_settings)):
            before, now = old_settings.get(name), new_settings.get(name)
            if before != now and was.optimizer.type == table.optimizer.type:
                yield change(
                    "optimizer",
                    before,
                    now,
                    f"the optimizer's `{name}` changes from {before} to {now}",
                )


def _settings(optimizer: object) -> dict[str, str | float | bool]:
    """An OptimizerSpecProto's settings by name: the learning rate (or its schedule's tag),
    then its float and bool parameters."""
    found: dict[str, str | float | bool] = {}
    which = optimizer.WhichOneof("learning_rate_spec")  # type: ignore[attr-defined]
    if which is not None:
        found[which] = getattr(optimizer, which)
    found.update(optimizer.float_params)  # type: ignore[attr-defined]
    found.update(optimizer.bool_params)  # type: ignore[attr-defined]
    return found
