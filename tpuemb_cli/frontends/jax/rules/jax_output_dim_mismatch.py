"""A JAX feature whose output dimension is not its table's embedding dimension.

## What it does
Reports a feature whose `output_shape`'s last dimension differs from its table's
`embedding_dim`: in an EmbeddingSpecProto, and in a spec made from the library's `FeatureSpec`
objects (`tpuemb_cli.jax.spec_from_jax`; the table's `dim` there).

## Why is this bad?
A lookup returns rows of the table: `embedding_dim` values each. A feature declared wider cannot
be filled; one declared narrower gets what the unstacking path makes of it.

## What jax-tpu-embedding does
`prepare_feature_specs_for_training` and the stacking accept any output shape. At the first
lookup, `_get_activation_for_feature` raises `ValueError` ("The embedding dim in output shape
cannot be more than the (original, unpadded) embedding dim") for a wider one; a narrower one is
cut to its first columns by that default path, while the activation-unstack primitive returns the
table's full dimension (`per_feature_dims` are the tables'): the shape the model sees depends on
the path.

## Example
```pbtxt
table_specs {
  table_name: "a" embedding_dim: 16
  feature_specs { feature_name: "f" output_shape: [256, 8] }
}
```

## Use instead
```pbtxt
table_specs {
  table_name: "a" embedding_dim: 16
  feature_specs { feature_name: "f" output_shape: [256, 16] }
}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `_get_activation_for_feature` and `_unstack_activations_with_primitive`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib import spec as jax_spec
from tpuemb_cli.frontends.jax.rules.lib.stacks import (
    feature_label,
    feature_path,
    features,
    table_label,
)
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax(spec: Any) -> Iterator[Violation]:
    for s, _stack, t, table, f, feature in features(spec):
        yield from _check(
            (*feature_path(s, t, f), "output_shape"),
            feature.output_shape,
            feature_label(f, feature),
            table_label(t, table),
            table.embedding_dim,
        )


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    for f, feature, t, table in jax_spec.features_with_tables(spec):
        yield from _check(
            (*jax_spec.feature_path(f), "output_shape"),
            feature.output_shape,
            jax_spec.feature_label(f, feature),
            jax_spec.table_label(t, table),
            table.dim,
        )


def _check(
    path: tuple[str | int, ...], output_shape: Any, feature: str, table: str, embedding_dim: int
) -> Iterator[Violation]:
    if not output_shape:
        return
    dim = output_shape[-1]
    if dim == embedding_dim:
        return
    yield Violation(
        (*path, len(output_shape) - 1),
        f"{feature} outputs {dim} values a sample, but {table} has embedding_dim "
        f"{embedding_dim}: "
        + (
            "the library raises ValueError at the first lookup"
            if dim > embedding_dim
            else "the lookup is cut to its first columns or returned whole, by path"
        ),
        f"make the output_shape's last dimension {embedding_dim}",
    )
