"""``tpuemb explain`` on a SparseCore spec: how TPUEmbeddingV2 stacks its tables -- which tables
share a stack and why, the stacked names (the keys of ``max_ids_per_table``), rows per SparseCore
and what padding adds. Everything shown comes from ``spec.sparsecore.plan``, the layouts
``tpuemb compile --target sparsecore`` writes."""

from __future__ import annotations

import textwrap

from tpuemb_cli.model import optimizers
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.sparsecore_stacker import Limits
from tpuemb_cli.model.words import count, plural, printable
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, Optimizer
from tpuemb_cli.spec.compiler import effective_optimizer
from tpuemb_cli.spec.sparsecore import Plan, SparseCoreError, Stack
from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory
from tpuemb_cli.spec.sparsecore_state import state_bytes
from tpuemb_cli.views.sparsecore_memory import explain_lines, stack_memory_line

_WIDTH = 100  # prose lines; tables are as wide as their cells


def _optimizer(optimizer: Optimizer | None) -> str:
    if optimizer is None:
        return "no optimizer"
    known = optimizers.of_spec(optimizer.WhichOneof("algorithm"))
    rate = optimizer.learning_rate
    which = rate.WhichOneof("value")
    if which == "schedule":
        learning = f"learning rate schedule {rate.schedule!r}"
    elif which == "constant":
        learning = f"learning rate {rate.constant:g}"
    else:
        learning = "default learning rate"
    name = known.tf_class if known else str(optimizer.WhichOneof("algorithm"))
    return f"{name}, {learning}"


def _stack_lines(
    spec: EmbeddingSpec, plan_: Plan, number: int, stack: Stack, memory: SparseCoreMemory | None
) -> list[str]:
    first = spec.tables[stack.members[0].spec_index]
    lines = [
        f"stack {count(number)} of {count(len(plan_.stacks))}: "
        f"{plural(len(stack.tables), 'table')}, width {count(stack.padded_width)}, "
        f"{count(stack.rows_per_sparse_core)} rows per SparseCore "
        f"({_optimizer(effective_optimizer(spec, first))})",
        *([stack_memory_line(memory.stacks[number - 1], memory)] if memory else []),
        "  name (the key of sparse_core.max_ids_per_table / max_unique_ids_per_table):",
        f"    {printable(stack.name)}",
    ]
    header = ("table", "rows x dim", "padded", "padding", "row offset", "rotation")
    rows = [header]
    for member in stack.members:
        padded_rows, padded_dim = member.padded_shape
        extra = padded_rows * padded_dim - member.shape[0] * member.shape[1]
        share = extra / (padded_rows * padded_dim) if padded_rows * padded_dim else 0.0
        optimizer = effective_optimizer(spec, spec.tables[member.spec_index])
        assert optimizer is not None  # plan() refuses a table without one
        waste = state_bytes(member.padded_shape, optimizer) - state_bytes(member.shape, optimizer)
        rows.append(
            (
                printable(member.name),
                f"{count(member.shape[0])} x {count(member.shape[1])}",
                f"{count(padded_rows)} x {count(padded_dim)}",
                f"{share:.1%} ({size(waste)})" if extra else "-",
                count(member.row_offset),
                count(member.rotation),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for index, row in enumerate(rows):
        lines.append("  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if index == 0:
            lines.append("  " + "  ".join("-" * width for width in widths))
    return lines


def _why(plan_: Plan) -> list[str]:
    """Why the tables fall into these stacks, in the terms of TensorFlow's stacker."""
    limits = Limits()
    lines = textwrap.wrap(
        "Tables share a stack when they have equal optimizer settings and quantization "
        "(TensorFlow's group key) and one width padded to a multiple of 8; a stack ends when "
        f"a table would bring it to {size(limits.activation_mem_bytes)} of activations or "
        f"{size(limits.variable_shard_bytes)} per partition's shard. Rows are padded to a "
        f"multiple of 8 x {count(plan_.num_sparse_cores)} SparseCores = "
        f"{count(8 * plan_.num_sparse_cores)}.",
        _WIDTH,
    )
    keys: dict[tuple[int, str], int] = {}
    for stack in plan_.stacks:
        keys[(stack.padded_width, stack.group)] = keys.get((stack.padded_width, stack.group), 0) + 1
    split = sum(1 for tables in keys.values() if tables > 1)
    if split:
        lines += textwrap.wrap(
            f"{plural(split, 'group')} of equal settings and width did not fit in one stack "
            "(a byte limit was reached).",
            _WIDTH,
        )
    return lines


def explain_stacking(
    spec: EmbeddingSpec,
    layout: Plan | SparseCoreError | None,
    memory: SparseCoreMemory | None = None,
) -> list[str]:
    """The lines ``explain`` adds for a spec with a ``sparse_core`` section, laid out as
    ``layout`` says (``SpecFacts.layout``: the plan, or why there is none), with what each stack
    takes (``memory``: ``SpecFacts.sparsecore_memory``, the figures of ``explain --memory``)."""
    if not isinstance(layout, Plan):
        return ["SparseCore stacking: not laid out: " + printable(str(layout))]
    laid_out = layout
    disabled = spec.sparse_core.disable_table_stacking
    lines = [
        "SparseCore stacking (TPUEmbeddingV2, as `tpuemb compile --target sparsecore` lays it "
        "out):",
        f"{plural(laid_out.num_partitions, 'partition')} "
        f"(replicas) x {count(laid_out.sparse_cores_per_partition)} SparseCores per partition = "
        f"{count(laid_out.num_sparse_cores)} SparseCores; "
        + (
            "stacking disabled: each table is a stack of its own"
            if disabled
            else f"{plural(len(laid_out.tables), 'table')} in "
            f"{plural(len(laid_out.stacks), 'stack')}"
        ),
        "",
    ]
    if not disabled:
        lines += [*_why(laid_out), ""]
    for number, stack in enumerate(laid_out.stacks, 1):
        lines += [*_stack_lines(spec, laid_out, number, stack, memory), ""]
    if memory is not None:
        lines += [*explain_lines(memory), ""]
    quirk = laid_out.quirk
    if quirk.zeroed_tables:
        lines += textwrap.wrap(
            "Checkpoints record per_sparse_core_batch_size and num_features for "
            f"{printable(repr(quirk.recorded_table))} only; "
            f"{plural(len(quirk.zeroed_tables), 'other table')} carry 0 (TE651).",
            _WIDTH,
        )
    return lines
