"""Where a stack comes from and how the rules name it: the stack call that made it, a table's
``stack_table_name``, a table's own name, or the collection's ``auto_stack`` -- the words a
message uses, and the field path a finding about the stack points at."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.frontends.torchrec.spec.stacking import Stack
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.words import ticked


def table_names(stack: Stack) -> str:
    """``a``, ``b``: the stack's tables, as a message lists them."""
    return ticked(place.name for place in stack.tables)


def made_by(spec: Any, stack: Stack) -> str:
    """Who made ``stack``: ``stack_calls[0] (stack_tables)``, ``stack_table_name "s"``, ``table
    `a`'s own name`` or ``the collection's auto_stack``."""
    if stack.call_index >= 0:
        return f"stack_calls[{stack.call_index}] ({spec.stack_calls[stack.call_index].call})"
    if _auto(spec):
        return "the collection's auto_stack"
    named = _named(spec, stack)
    if named is not None:
        return f'stack_table_name "{stack.name}"'
    return f"table `{stack.name}`'s own name"


def made_at(spec: Any, stack: Stack) -> FieldPath:
    """Where ``stack``'s name is written: its stack call's ``name`` (or the call), else its first
    table's ``stack_table_name`` (or the table's name)."""
    if stack.call_index >= 0:
        call = spec.stack_calls[stack.call_index]
        return ("stack_calls", stack.call_index) + (("name",) if call.name else ())
    if _auto(spec):
        return ("collection", "auto_stack")
    named = _named(spec, stack)
    if named is not None:
        return ("tables", named, "stack_table_name")
    own = next((p.table for p in stack.tables if p.name == stack.name), stack.tables[0].table)
    return ("tables", own, "name")


def _auto(spec: Any) -> bool:
    """The collection auto stacks: every table no stack call stacked is in one of its stacks
    (``prepare_tables_for_stacking`` then finds none left)."""
    return bool(spec.HasField("collection") and spec.collection.auto_stack)


def _named(spec: Any, stack: Stack) -> int | None:
    """The first of ``stack``'s tables whose ``stack_table_name`` is the stack's name."""
    return next(
        (p.table for p in stack.tables if spec.tables[p.table].stack_table_name == stack.name),
        None,
    )
