"""A JAX feature that names a table the spec does not define.

## What it does
Reports each feature of a JAX spec (a spec with a `jax` section) whose `table` is neither the
name of one of the spec's tables nor `#<i>` for one of them (how `tpuemb_cli.jax.spec_from_jax`
refers to one of two tables that share a name).

## Why is this bad?
In jax-tpu-embedding a `FeatureSpec` holds its `TableSpec` itself, so a feature always has its
table. A spec written by hand (or edited after `spec_from_jax` wrote it) can lose that link: a
renamed table, a typo. tpuemb cannot then say what the feature looks up, so the rules that
judge a feature against its table (output dimension, limits, stacks) and `explain --memory`
say nothing about it.

## What jax-tpu-embedding does
Nothing to compare: the library's objects cannot express it. This is the spec's own
consistency, as `spec-unknown-table` (TE703) is for a TensorFlow spec.

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "video" vocabulary_size: 1000 dim: 16 }
features { name: "watched" table: "videos" input_shape: [128] output_shape: [128, 16] }
```

## Use instead
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "video" vocabulary_size: 1000 dim: 16 }
features { name: "watched" table: "video" input_shape: [128] output_shape: [128, 16] }
```

## Fix safety
No automatic fix: which table was meant is the user's to say.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding_spec.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding_spec.py),
  `FeatureSpec` (its `table_spec` is the TableSpec object)
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib.spec import feature_label, feature_path, table_of
from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    names = sorted({table.name for table in spec.tables if table.name})
    for index, feature in enumerate(spec.features):
        if table_of(spec, feature) is not None:
            continue
        known = ", ".join(f'"{shown(name, 40)}"' for name in names[:5])
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        yield Violation(
            (*feature_path(index), "table"),
            f'{feature_label(index, feature)} uses table "{shown(feature.table)}", which the '
            "spec does not define",
            f"name one of the spec's tables ({known}{more})" if names else "add its table",
        )
