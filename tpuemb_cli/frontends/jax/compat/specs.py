"""The stacked layout ``tpuemb diff`` compares for a tpuemb spec with a ``jax`` section: the
``EmbeddingSpecProto`` jax-tpu-embedding would make of it.

``diff`` does not stack tables itself: ``stacked_layout_of_spec`` is the one place where a spec
becomes its stacked layout, and it is ``compile --target jax``'s work
(``frontends/jax/spec/compiler.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpuemb_cli.compat.sides import NotComparable
from tpuemb_cli.frontends.jax.compat.entries import JaxSide, StackVariables, jax_side
from tpuemb_cli.load import Document
from tpuemb_cli.model.paths import FieldPath

SpecToStacked = Callable[[Any], Any]


def stacked_layout_of_spec(spec: Any) -> Any:
    """The EmbeddingSpecProto the library would make of ``spec`` (an EmbeddingSpec with a jax
    section): compile --target jax's, each table's optimizer named as 0.2.0 records it; raises
    NotComparable for a stacking the library refuses (a spec whose refusal TE696 would report,
    with that rule turned off)."""
    from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec
    from tpuemb_cli.frontends.jax.spec.named_optimizers import with_optimizers
    from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError

    try:
        # Each table's optimizer named (0.2.0's record of it): a checkpoint's slot arrays are
        # keyed by its slots' names, and Orbax restores them by name.
        return with_optimizers(compile_jax_spec(spec), spec)
    except JaxStackingError as refused:
        raise NotComparable(
            f"jax-tpu-embedding would refuse the spec's stacking: {refused.message}"
        ) from None


def spec_side(document: Document, spec: Any, to_stacked: SpecToStacked) -> JaxSide:
    """The stacked layout of ``spec`` (``document``'s message), its changes placed at the spec's
    tables (a stack's at its first table's), or at its ``jax`` section."""
    try:
        proto = to_stacked(spec)
    except NotComparable as refused:
        raise NotComparable(f"{document.name}: {refused}") from None
    by_name = {table.name: i for i, table in enumerate(spec.tables)}

    def to_file(path: FieldPath) -> FieldPath:
        if len(path) >= 2 and path[0] == "stacked_table_specs" and isinstance(path[1], int):
            stack = proto.stacked_table_specs[path[1]]
            tables = stack.table_specs
            which = path[3] if len(path) >= 4 and isinstance(path[3], int) else 0
            if 0 <= which < len(tables) and tables[which].table_name in by_name:
                return ("tables", by_name[tables[which].table_name])
        return ("jax",)

    side = jax_side(document, proto, to_file)
    # Each table's optimizer class, read once for every stack (once a stack was quadratic: 10,000
    # tables in 10,000 stacks took minutes).
    classes = {table.name: table.jax.optimizer.type for table in spec.tables}
    return side._replace(stacks=[_with_class_slots(stack, classes) for stack in side.stacks])


def _with_class_slots(stack: StackVariables, classes: dict[str, str]) -> StackVariables:
    """The stack with its optimizer class's slots, which the spec names and the proto may not
    (0.2.0 records LaProp as CUSTOM): the first table's (``classes``: each table's optimizer
    class), as the library's stack has one optimizer."""
    from tpuemb_cli.model import optimizers

    first = classes.get(stack.tables[0].name) if stack.tables else None
    row = optimizers.jax_class(first) if first else None
    return stack._replace(known_slots=row.slots) if row is not None else stack
