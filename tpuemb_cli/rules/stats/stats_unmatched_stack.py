"""The statistics and the document do not name the same stacks.

## What it does
With statistics given (`check --stats PATH`), reports the stacks the statistics hold that the
document has none of, the document's stacks the statistics hold nothing for, and stacks whose
statistics cannot judge them: no `max_ids` or `max_unique_ids` array, no id counted, or a value
a row for another number of partitions than the stack's SparseCores (measured for another
layout; jax-tpu-embedding's files hold a value a partition for each local device). And a
document whose stacks are not known, so that the statistics judge nothing: a Keras-RS model
without a TPU named (its devices and SparseCores make its stacks). Statistics key
each stack by its name (`SparseDenseMatmulInputStats`): a stack renamed (its tables stacked
otherwise, another `stack_name`), or statistics of another model, match nothing.

## Why is this bad?
A stack without statistics is not checked against its input (TE611, TE612 say nothing of it),
and `update_preprocessing_parameters` leaves its limits as they are: the job runs with limits
nobody measured.

## What the library does
`update_preprocessing_parameters` takes each stack's statistics by name and keeps a stack's limits
where there are none; statistics of stacks it does not have are never read.

## Example
```pbtxt
# statistics for stacks "a_b" and "c"
stacked_table_specs { stack_name: "a" }
stacked_table_specs { stack_name: "b" }
stacked_table_specs { stack_name: "c" }
```

## Use instead
Measure again with the stacks as they are now (`tpuemb stats IDS SPEC -o DIR`, or a run with
the library's FDO client).

## Fix safety
No automatic fix.

## Options
`stats` (or `--stats`).

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `update_preprocessing_parameters`
"""

from collections.abc import Iterator

from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import plural, ticked
from tpuemb_cli.rules.base import Measured


def _names(names: tuple[str, ...]) -> str:
    return ticked(shown(name) for name in names)


def check_stats(measured: Measured) -> Iterator[Violation]:
    if measured.unused:
        yield Violation(
            measured.path,
            f"the statistics ({shown(measured.source)}) are not used: {measured.unused}",
            "name the TPU (--tpu, or `tpu` in the settings)",
        )
        return
    if not measured.unmatched and not measured.unmeasured and not measured.unjudged:
        return
    said = []
    if measured.unmatched:
        said.append(
            f"holds {plural(len(measured.unmatched), 'stack')} this document has none of: "
            f"{_names(measured.unmatched)}"
        )
    if measured.unmeasured:
        said.append(
            f"holds nothing for {plural(len(measured.unmeasured), 'stack')} of it: "
            f"{_names(measured.unmeasured)}, whose limits are not checked against their input"
        )
    for name, why in measured.unjudged:
        said.append(f"cannot judge stack `{shown(name)}`: {why}")
    where = measured.stacks[0].path if measured.stacks else ()
    yield Violation(
        where,
        f"the statistics ({shown(measured.source)}) " + "; and ".join(said),
        "measure the stacks as they are now (tpuemb stats IDS SPEC -o DIR, or the library's "
        "FDO client)",
    )
