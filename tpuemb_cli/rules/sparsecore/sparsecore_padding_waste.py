"""A SparseCore table whose padding takes more than a quarter of its memory.

## What it does
Reports, on a SparseCore spec (one with a `sparse_core` section), a table whose padded shape --
rows padded to a multiple of 8 x the SparseCores in all, width to a multiple of 8, as
TensorFlow's stacker lays it out -- holds more than 25% padding. The message gives the shape and
the padded shape, the SparseCores, and the bytes of padding and in all: the parameters and each
slot variable of the table's optimizer (none for SGD; Adagrad: `accumulators`; AdagradMomentum:
`accumulators`, `momenta`; Adam: `momenta`, `velocities`; FTRL: `accumulators`, `linears`), in
float32. The fix says which vocabulary size and dim the padded shape holds at no extra cost.

The threshold is a quarter of the padded bytes. Rounding rows up to the next multiple of
8 x SparseCores (a *granule*) wastes more than that only for tables of fewer than three granules
(fewer than 6,144 rows on 256 SparseCores), and rounding the width only for dims 1-5, 9-11 and
17; so a typical large table (many granules, a dim that is a multiple of 8) never fires, while a
small table spread over many SparseCores, or an odd narrow dim, does. Exactly a quarter does not
fire (384 rows padded to 512; dim 6, 12 or 18 with no row padding), but dims 6, 12 and 18 fire
with any row padding on top.

A table's padding must also be at least 1% of the padded bytes of all the spec's tables: in a
model of 40-million-row tables, a 10-row table padded to 4,096 rows wastes a few MiB beside
hundreds of GiB, which is not worth a finding (`tpuemb explain` still shows it).

When the spec cannot be laid out (the SparseCores per chip unknown, a feature without
`output_shape`, an optimizer with no SparseCore update, ...), the rule says nothing: other rules
report those.

## Why is this bad?
Padding rows and columns live in HBM like real ones, with their optimizer state, and are read
and updated like them. A quarter or more of a table's bytes spent on padding is memory the
table could use for vocabulary or width at no cost, or a sign the table is spread over more
SparseCores than its size warrants.

## What TensorFlow does
`_stack_tables_with_same_table_dim_and_optimizer` adds every table to `SparseCoreLayoutStacker`,
which pads its width to a multiple of 8 and its height to a multiple of 8 x the SparseCores in
all (replicas x SparseCores per chip), then sets the table's `vocabulary_size` and `dim` to the
padded shape. `_create_variables` allocates the stacked table's parameters and one variable per
slot of its optimizer with that padded shape, in float32. Nothing is logged.

## Example
```yaml
optimizer: {adagrad: {}}
tables: [{name: country, vocabulary_size: 300, dim: 16}]
features: [{name: country, table: country, output_shape: [64]}]
topology: {num_hosts: 2, cores_per_host: 4, accelerator: v5p}  # 8 replicas x 4 SparseCores
sparse_core: {}
```
300 rows on 32 SparseCores are padded to 512: 41% of the table's 64.0 KiB (parameters and
accumulators) is padding.

## Use instead
```yaml
tables: [{name: country, vocabulary_size: 512, dim: 16}]  # room for new ids, same memory
```
or fold the small table into a larger one's vocabulary.

## Fix safety
No automatic fix: the vocabulary and the width are modelling choices.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `_stack_tables_with_same_table_dim_and_optimizer` (`table.vocabulary_size =
  layout.unsharded_padded_shape[0]`) and `TPUEmbeddingV2._create_variables`
  (`variable_dtype = dtypes.float32`, `optimizer._create_slots`)
- [`tensorflow/core/tpu/kernels/sparse_core_layout.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/kernels/sparse_core_layout.cc),
  `SparseCoreLayoutStacker::AddTable` (`NextLargestMultiple(table_width, 8)`,
  `NextLargestMultiple(table_height, num_sparse_cores_ * 8)`)
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  each optimizer's `_slot_names`
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.memory import size
from tpuemb_cli.model.words import plural
from tpuemb_cli.pb.spec.embedding_spec_pb2 import Optimizer
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import table_label
from tpuemb_cli.spec.compiler import effective_optimizer
from tpuemb_cli.spec.facts import SpecFacts
from tpuemb_cli.spec.sparsecore_state import slot_names, state_bytes

# A table is reported when its padding is more than this share of its padded bytes...
THRESHOLD_PERCENT = 25
# ... and at least this share of the padded bytes of every table of the spec: a small table's
# few MiB of padding beside tables of many GiB costs nothing worth a finding.
MODEL_PERCENT = 1


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    found = facts.plan
    if found is None:
        return  # not a SparseCore spec, or `tpuemb compile --target sparsecore` says why
    optimizers: dict[str, Optimizer] = {}
    for name, layout in found.tables.items():
        optimizer = effective_optimizer(spec, spec.tables[layout.spec_index])
        assert optimizer is not None  # plan() refuses a table without one
        optimizers[name] = optimizer
    model = sum(
        state_bytes(layout.padded_shape, optimizers[name]) for name, layout in found.tables.items()
    )
    for layout in sorted(found.tables.values(), key=lambda table: table.spec_index):
        rows, width = layout.shape
        padded_rows, padded_width = layout.padded_shape
        padded_cells, cells = padded_rows * padded_width, rows * width
        if (padded_cells - cells) * 100 <= THRESHOLD_PERCENT * padded_cells:
            continue
        optimizer = optimizers[layout.name]
        total = state_bytes(layout.padded_shape, optimizer)
        wasted = total - state_bytes(layout.shape, optimizer)
        if wasted * 100 < MODEL_PERCENT * model:
            continue
        slots = slot_names(optimizer)
        holds = "parameters" + (f" and {', '.join(slots)}" if slots else "")
        yield Violation(
            ("tables", layout.spec_index),
            f"{table_label(spec, layout.spec_index)} is padded from {rows} x {width} to "
            f"{padded_rows} x {padded_width} on {plural(found.num_sparse_cores, 'SparseCore')}: "
            f"{_percent(padded_cells - cells, padded_cells)} of its {size(total)} ({holds}, "
            f"float32) is padding ({size(wasted)})",
            f"the padded shape costs the same whatever fills it: a vocabulary_size up to "
            f"{padded_rows} and a dim up to {padded_width} take no more memory (rows are padded "
            f"to a multiple of 8 x {found.num_sparse_cores} SparseCores, the dim to a multiple "
            "of 8)",
        )


def _percent(part: int, whole: int) -> str:
    """``41.4%``; ``25%`` only when exactly a quarter (25.02% is not shown as 25.0%)."""
    if part * 100 % whole == 0:
        return f"{part * 100 // whole}%"
    shown = f"{part * 100 / whole:.1f}"
    return (f"{part * 100 / whole:.2f}" if shown.endswith(".0") else shown) + "%"
