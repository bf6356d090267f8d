"""What jax-tpu-embedding's ``stack_tables`` refuses in an explicit stack that its layout
(`jax_stacking.problems`, `jax_layout`) does not, at v0.1.0 (``lib/nn/table_stacking.py``,
``_verify_stack_tables``): tables of different optimizers or combiners, checked after the excess
padding ``fail_on_excess_padding`` refuses, as the library checks them; ``compile_jax`` raises
them (``lint_jax`` reports them as TE692)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.jax.spec.optimizer_key import optimizer_key
from tpuemb_cli.frontends.jax.spec.stacking import (
    JaxStackingError,
    excess_refusals,
    explicit_stacks,
    first_use,
)


def verify_stack_tables(spec: Any) -> None:
    """What ``stack_tables`` refuses in an explicit stack that the layout does not: tables of
    different optimizers (compared as the library compares them, by their hash) or combiners
    (its ``_verify_stack_tables``), after the excess padding it refuses with
    ``fail_on_excess_padding`` (TE696 in the layout's problems, raised here in the library's
    order). ``lint_jax`` reports them as TE692, and the command line
    refuses any spec with errors; the API raises as the library does."""
    used, failing = first_use(spec), set(spec.jax.fail_on_excess_padding)
    for name, members in explicit_stacks(spec).items():
        # stack_tables checks the padding first (with fail_on_excess_padding), then the rest.
        at = ("tables", members[0], "jax", "stack")
        for refused in excess_refusals(spec, name, members, at, used, failing):
            raise refused
        tables = [spec.tables[index] for index in members]
        if any(table.jax.optimizer.unhashable for table in tables):
            continue  # hashing them raises TypeError first: the layout refuses it (TE676)
        names = [table.name for table in tables]
        for what, key in (("optimizers", optimizer_key), ("combiners", _combiner)):
            if any(key(table) != key(tables[0]) for table in tables[1:]):
                raise JaxStackingError(
                    ("tables", members[0], "jax", "stack"),
                    f"Tables {names} in group {name} have different {what}.",
                    f"give the tables of stack {name!r} one {what[:-1]}, or stack them apart",
                    rule="TE692",
                )


def _combiner(table: Any) -> str:
    return str(table.combiner)
