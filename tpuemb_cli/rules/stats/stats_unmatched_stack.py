"""The statistics and the document do not name the same stacks.

## What it does
With statistics given (`check --stats PATH`), reports the stacks the statistics hold that the
document has none of, and the document's stacks the statistics hold nothing for. Statistics key
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
from tpuemb_cli.model.words import plural
from tpuemb_cli.rules.base import Measured


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{shown(name)}`" for name in names)


def check_stats(measured: Measured) -> Iterator[Violation]:
    if not measured.unmatched and not measured.unmeasured:
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
    where = measured.stacks[0].path if measured.stacks else ()
    yield Violation(
        where,
        f"the statistics ({shown(measured.source)}) " + "; and ".join(said),
        "measure the stacks as they are now (tpuemb stats IDS SPEC -o DIR, or the library's "
        "FDO client)",
    )
