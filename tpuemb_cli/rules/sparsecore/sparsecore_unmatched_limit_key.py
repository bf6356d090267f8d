"""A SparseCore limit keyed by a name that is no stacked table's: TensorFlow ignores it.

## What it does
Reports, on a SparseCore spec (one with a `sparse_core` section), each key of
`sparse_core.max_ids_per_table` and `sparse_core.max_unique_ids_per_table` that is not the name of
a stacked table as TensorFlow's stacker names them: the member tables' names, sorted, joined with
`_` (`item_user` for tables `user` and `item` that share a width and optimizer). The finding sits
at the key. When the key is a member table's own name -- the mistake TensorFlow Model Garden's
ranking task makes -- the message names the stack the table is in; otherwise it suggests the
closest stacked name. Either way it lists the stacked names (long ones shortened), and the fix
gives the exact key to write.

With `disable_table_stacking: true` every table is a stack of its own named after it, so plain
table names are the right keys and are not reported. When the spec cannot be laid out (the
SparseCores per chip unknown, a feature without `output_shape`, an optimizer with no SparseCore
update, ...), the rule says nothing: other rules report those.

## Why is this bad?
The limits size the SparseCore's static buffers for the ids of one step. A limit under a name
TensorFlow never looks up has no effect: the stack keeps the default of 256 ids (and 256 unique
ids) per SparseCore, so a model that needs more drops or fails on ids, and one that meant to
shrink the buffers does not. Nothing but a log line says so.

## What TensorFlow does
After stacking, `TPUEmbeddingV2._update_sparse_core_buffer_size_after_table_stacking` looks up
each *stacked* table name in `max_ids_per_table` and `max_unique_ids_per_table`. A stacked name
that is not a key logs `Table <stacked name> is not found in max_ids_per_table provided by
SparseCoreEmbeddingConfig. Using default value 256.` and the stack gets
`DEFAULT_MAX_IDS_PER_TABLE` (256; `DEFAULT_MAX_UNIQUE_IDS_PER_TABLE`, also 256, for the unique
ids). Keys that name no stack are never read. On a 26-table DLRM whose tables share a width and
an optimizer there is one stack, named by all 26 table names joined, and no per-table key
matches it.

## Example
```yaml
optimizer: {adagrad: {}}
tables:
  - {name: user, vocabulary_size: 1000, dim: 16}
  - {name: item, vocabulary_size: 5000, dim: 16}
features:
  - {name: user_id, table: user, output_shape: [128]}
  - {name: item_id, table: item, output_shape: [128]}
topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}
sparse_core:
  max_ids_per_table: {user: 1024}
```

## Use instead
```yaml
sparse_core:
  max_ids_per_table: {item_user: 1024}
```
One key sets the limit of the whole stack. `tpuemb compile --target sparsecore` shows the stacked
names (`stacked_table_name`).

## Fix safety
No automatic fix: renaming a map key is not an edit tpuemb's fixers make, YAML specs get no
automatic fixes, and which limit a stack of several keyed tables should get is the user's call.
The fix text gives the exact key.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v3.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v3.py),
  `TPUEmbeddingV2._update_sparse_core_buffer_size_after_table_stacking`,
  `DEFAULT_MAX_IDS_PER_TABLE` and `DEFAULT_MAX_UNIQUE_IDS_PER_TABLE`, and
  `_stack_tables_with_same_table_dim_and_optimizer` (`stacked_table_to_tables`)
- [`tensorflow/core/tpu/kernels/sparse_core_layout.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/kernels/sparse_core_layout.cc),
  `SparseCoreLayoutStacker::GetLayouts` (`absl::StrJoin(stack.table_names, "_")`)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.nearest import nearest
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.spec.facts import SpecFacts
from tpuemb_cli.spec.sparsecore import Plan

FIELDS = ("max_ids_per_table", "max_unique_ids_per_table")
DEFAULT = 256  # DEFAULT_MAX_IDS_PER_TABLE and DEFAULT_MAX_UNIQUE_IDS_PER_TABLE
SHOWN_STACKS = 4  # the message lists this many stacked names; the fix gives the exact key
LONG_NAME = 48


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    found = facts.plan
    if found is None:
        return  # not a SparseCore spec, or `tpuemb compile --target sparsecore` says why
    stacks = {stack.name for stack in found.stacks}
    spec_tables = {table.name for table in spec.tables}
    for field in FIELDS:
        keys = getattr(spec.sparse_core, field)
        for key in sorted(keys):
            if key in stacks:
                continue
            message, fix = _explain(key, field, found, set(keys), spec_tables)
            yield Violation(("sparse_core", field, key), message, fix)


def _explain(
    key: str, field: str, found: Plan, keys: set[str], spec_tables: set[str]
) -> tuple[str, str]:
    """The message and the fix for ``key`` of ``field``, which names no stack."""
    start = f'key "{key}" of {field} matches no stacked table'
    listing = f" (stacked names: {_listing(found)})"
    member = found.tables.get(key)
    if member is not None:
        stack = _shown(member.stack)
        others = "" if len(found.stacks) == 1 else listing
        if member.stack in keys:
            return (
                f'{start}: table "{key}" is stacked into {stack}, whose own key sets the '
                f"stack's limit; TensorFlow never reads this one{others}",
                f"delete this key: the stack's limit is the one under {member.stack}",
            )
        keyed = sorted(
            other
            for other in keys
            if other in found.tables and found.tables[other].stack == member.stack
        )
        fix = f"rename the key to {member.stack} (one limit for the whole stack)"
        if len(keyed) > 1:
            named = ", ".join(f'"{name}"' for name in keyed)
            fix = (
                f"replace the keys {named} with one key, {member.stack} (one limit for the "
                "whole stack)"
            )
        return (
            f'{start}: table "{key}" is stacked with {_others(found, member.stack, key)} into '
            f"{stack}, and TensorFlow looks up only that name, so the stack gets the default "
            f"{DEFAULT}{others}",
            fix,
        )
    if key in spec_tables:
        return (
            f'{start}: no feature uses table "{key}", so TensorFlow lays out no stack for it'
            f"{listing}",
            "delete this key",
        )
    known = [*(stack.name for stack in found.stacks), *found.tables]
    guess = nearest(key, known)
    if guess is None:
        return (
            f"{start}: TensorFlow never reads it, and stacks without a key get the default "
            f"{DEFAULT}{listing}",
            "key the limit by a stacked name: " + ", ".join(stack.name for stack in found.stacks),
        )
    target = found.tables[guess].stack if guess in found.tables else guess
    return (
        f"{start}: TensorFlow never reads it, and stacks without a key get the default "
        f"{DEFAULT}; did you mean {_shown(target)}?{listing}",
        f"rename the key to {target}",
    )


def _others(found: Plan, stack: str, table: str) -> str:
    members = next(s.tables for s in found.stacks if s.name == stack)
    others = [name for name in members if name != table]
    if len(others) <= SHOWN_STACKS:
        return ", ".join(f'"{name}"' for name in others)
    shown = ", ".join(f'"{name}"' for name in others[:SHOWN_STACKS])
    return f"{shown} and {len(others) - SHOWN_STACKS} more tables"


def _listing(found: Plan) -> str:
    names = [_shown(stack.name) for stack in found.stacks]
    if len(names) <= SHOWN_STACKS:
        return ", ".join(names)
    return ", ".join(names[:SHOWN_STACKS]) + f" and {len(names) - SHOWN_STACKS} more"


def _shown(name: str) -> str:
    """A stacked name quoted, its middle elided when it is long (the fix gives it whole)."""
    if len(name) <= LONG_NAME:
        return f'"{name}"'
    return f'"{name[:24]}...{name[-16:]}" ({len(name)} characters)'
