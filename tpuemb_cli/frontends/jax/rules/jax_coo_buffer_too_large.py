"""A JAX stack whose input buffer the library cannot size: `max_ids_per_partition` too large.

## What it does
Reports a stack of jax-tpu-embedding's `EmbeddingSpecProto` (or of a spec with a `jax` section:
the stacks `compile --target jax` writes, whose SparseCores a device the spec says) whose
`max_ids_per_partition` does not fit a 32-bit integer, or whose theoretical maximum COO buffer --
`round_up(max_ids_per_partition, 8) x SparseCores a device x num_sparsecores` elements a device
-- is `INT_MAX` (2,147,483,647) or more. Without a TPU named, a device has at least one
SparseCore, so the rule reports the stacks whose buffer is too large whatever the chip; with
`--tpu`, the chip's SparseCores a device (as `explain --memory` counts them) also find the stacks
too large on that chip only.

## Why is this bad?
The COO buffer holds a device's ids, samples and gains for one stack in a step; its size is a
32-bit integer in the library's input preprocessing. A limit that makes it larger cannot be
sized: no batch is ever preprocessed.

## What jax-tpu-embedding does
`compute_theoretical_max_coo_buffer_size` passes `max_ids_per_partition` to C++ as a 32-bit
`int`: from 2^31 on, pybind11 raises `TypeError` (run on CPU with 0.1.0:
`compute_theoretical_max_coo_buffer_size(2**31, 1, 2)` raises "incompatible function
arguments"). Below that, `ComputeCooBufferSizePerDevice` computes the maximum in 64 bits and
`CHECK`s it below `INT_MAX`: the process aborts at the first batch, on the TPU host.

## Example
```pbtxt
stacked_table_specs { stack_name: "s" max_ids_per_partition: 2147483648 num_sparsecores: 8 }
```

## Use instead
```pbtxt
stacked_table_specs { stack_name: "s" max_ids_per_partition: 256 num_sparsecores: 8 }
```
The preprocessing statistics (`embedding.update_preprocessing_parameters`) measure what the
input needs.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `compute_theoretical_max_coo_buffer_size`
- [`jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc),
  `ComputeTheoreticalMaxCooBufferSize` and `ComputeCooBufferSizePerDevice`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import stacks, table_label, table_path
from tpuemb_cli.frontends.jax.rules.lib.stacks import stack_label, stack_path
from tpuemb_cli.frontends.jax.spec.memory import INT_MAX
from tpuemb_cli.frontends.jax.spec.stacking import ALIGNMENT, round_up
from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import Config, Fit
from tpuemb_cli.spec.facts import SpecFacts

_FIX = "lower max_ids_per_partition -- the library's default is 256"


def _least(stack: Any) -> int:
    """The COO buffer's elements a device with one SparseCore a device, the fewest there are."""
    return int(round_up(stack.max_ids_per_partition, ALIGNMENT) * stack.num_sparsecores)


def _past_32_bits(path: tuple[str | int, ...], where: str, limit: int) -> Violation:
    return Violation(
        path,
        f"{where} has max_ids_per_partition {limit:,}, more than a 32-bit int holds "
        f"({INT_MAX:,}): the library's input preprocessing takes it as one, and raises TypeError",
        _FIX,
    )


def check_jax(spec: Any) -> Iterator[Violation]:
    for s, stack in enumerate(spec.stacked_table_specs):
        limit, cores = stack.max_ids_per_partition, stack.num_sparsecores
        where, path = stack_label(s, stack), (*stack_path(s), "max_ids_per_partition")
        if limit > INT_MAX:
            yield _past_32_bits(path, where, limit)
        elif limit >= 1 and cores >= 1 and _least(stack) >= INT_MAX:
            yield Violation(
                path,
                f"{where}'s COO buffer takes at least {_least(stack):,} elements a device "
                f"(max_ids_per_partition {limit:,} rounded up to 8, x {cores:,} SparseCores, x "
                f"at least 1 SparseCore a device), not below INT_MAX ({INT_MAX:,}): the library "
                "aborts the process (CHECK in ComputeCooBufferSizePerDevice)",
                _FIX,
            )


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    # A spec says its SparseCores a device, so its verdict is exact, with or without --tpu: the
    # limit of each stack compile --target jax would write (a stack of one table takes the
    # table's, a stack of several the spec's stack_max_ids_per_partition; a table alone its own).
    jax = spec.jax
    per_device, devices = jax.num_sc_per_device, jax.global_device_count
    if devices < 1 or per_device < 1:
        return  # TE681 and the like say so
    cores = devices * per_device
    limits: list[tuple[tuple[str | int, ...], int, str]] = []
    stacked: set[int] = set()
    for name, members in stacks(facts).items():
        stacked.update(members)
        if len(members) == 1:
            stacked.discard(members[0])  # takes its table's own limit, as one alone does
        elif name in jax.stack_max_ids_per_partition:
            limit = jax.stack_max_ids_per_partition[name]
            limits.append((("jax", "stack_max_ids_per_partition", name), limit, _label(0, name)))
    for index, table in enumerate(spec.tables):
        if index not in stacked and table.jax.HasField("max_ids_per_partition"):
            path = (*table_path(index), "jax", "max_ids_per_partition")
            limits.append((path, table.jax.max_ids_per_partition, table_label(index, table)))
    for path, limit, where in limits:
        size = round_up(limit, ALIGNMENT) * cores * per_device
        if limit > INT_MAX:
            yield _past_32_bits(path, where, limit)
        elif limit >= 1 and size >= INT_MAX:
            yield Violation(
                path,
                f"{where}'s COO buffer takes {size:,} elements a device (max_ids_per_partition "
                f"{limit:,} rounded up to 8, x {cores:,} SparseCores, x {per_device} SparseCores "
                f"a device), not below INT_MAX ({INT_MAX:,}): the library aborts the process "
                "(CHECK in ComputeCooBufferSizePerDevice)",
                _FIX,
            )


def _label(index: int, name: str) -> str:
    return f'stack "{shown(name)}"' if name else f"stack {index}"


def check_memory(config: Config, fit: Fit) -> Iterator[Violation]:
    from tpuemb_cli.frontends.jax.spec.memory import JaxMemory  # only once a JAX proto meets a chip

    memory, per_device = fit.memory, getattr(fit.memory, "per_device", None)
    if not isinstance(memory, JaxMemory) or per_device is None:
        return
    for s, stack in enumerate(memory.stacks):
        least = stack.coo_per_sparse_core
        size = stack.coo_size(per_device)
        if least >= INT_MAX or size < INT_MAX or stack.max_ids_per_partition < 1:
            continue  # check_jax's, or fine
        yield Violation(
            (*stack_path(s), "max_ids_per_partition"),
            f"{_label(s, stack.name)}'s COO buffer takes {size:,} elements a device on a "
            f"{fit.chip.name} (max_ids_per_partition {stack.max_ids_per_partition:,} rounded up "
            f"to 8, x {stack.num_sparsecores:,} SparseCores, x {per_device} SparseCores a "
            f"device), not below INT_MAX ({INT_MAX:,}): the library aborts the process (CHECK in "
            "ComputeCooBufferSizePerDevice)",
            _FIX,
        )
