"""A JAX feature whose output shape is not `[input batch, dim]`: its lookups land in other rows.

## What it does
Reports a feature whose samples by its output shape (the product of all but the last dimension
of `output_shape`) are not its input batch (`input_shape[0]`), or whose `output_shape` has more
than two dimensions -- in an EmbeddingSpecProto,
and in a spec made from the library's `FeatureSpec` objects (`tpuemb_cli.jax.spec_from_jax`).
A sequence feature written as `input_shape [batch, seq]` with `output_shape [batch * seq, dim]`
or `[batch, seq, dim]` is one of them.

## Why is this bad?
jax-tpu-embedding has no sequence output: a lookup combines each sample's ids (a row of the
input, `input_shape[1]` of them) into one activation row, so a feature gives `input_shape[0]`
rows. Where the output shape says otherwise, the stack's rows are laid out by one count and
filled by the other: the feature gets rows of zeros or of other samples, and every feature after
it in its stack reads another feature's embeddings. Nothing fails.

## What jax-tpu-embedding does
The stacking (`_stack_feature_specs`) and `prepare_feature_specs_for_training` count a feature's
samples as `np.prod(output_shape[:-1])`: the stack's `total_sample_count`, each feature's
`row_offset`, and so the activation each stack's lookup returns. The input preprocessing
(`GetStackedTableMetadata` in `pybind_input_preprocessing.cc`) takes a feature's batch from
`input_shape[0]` and writes its samples one after another in that count. The default unstacking
(`_get_activation_for_feature`) then reads `output_shape[0]` rows from `row_offset`. Measured with
jax-tpu-embedding 0.1.0 on CPU (its preprocessing, and the lookup worked out from the ids,
sample ids and gains it returns): `input_shape [8, 3]` with `output_shape [24, 8]` gives the
feature 16 rows of zeros and of the next feature's embeddings, and that feature only zeros;
`[8, 3, 8]` returns `[8, 8]`, and the next feature zeros; `input_shape [24, 1]` with
`output_shape [8, 8]` writes samples past the stack's rows; `[8, 1, 8]` returns `[8, 8]`.

## Example
```pbtxt
table_specs {
  table_name: "history" embedding_dim: 16
  feature_specs { feature_name: "watched" input_shape: [256, 20] output_shape: [5120, 16] }
}
```

## Use instead
```pbtxt
table_specs {
  table_name: "history" embedding_dim: 16
  feature_specs { feature_name: "watched" input_shape: [256, 20] output_shape: [256, 16] }
}
```
For one embedding per position, give the positions as samples: `input_shape [5120, 1]`,
`output_shape [5120, 16]`, and reshape the activations to `[256, 20, 16]` after the lookup.

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `prepare_feature_specs_for_training`, `_get_activation_for_feature` and `FeatureSpec`'s field
  docs (`[global_batch_size, feature_valency]` in, `[global_batch_size, embedding_dim]` out)
- [`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py),
  `_stack_feature_specs`
- [`jax_tpu_embedding/sparsecore/lib/core/pybind_input_preprocessing.cc`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/pybind_input_preprocessing.cc),
  `GetStackedTableMetadata`
"""

from collections.abc import Iterator
from math import prod
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib import spec as jax_spec
from tpuemb_cli.frontends.jax.rules.lib import stacks as jax_stacks
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.words import count
from tpuemb_cli.spec.facts import SpecFacts


def check_jax(spec: Any) -> Iterator[Violation]:
    for s, _stack, t, _table, f, feature in jax_stacks.features(spec):
        yield from _check(
            jax_stacks.feature_path(s, t, f), feature, jax_stacks.feature_label(f, feature)
        )


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    for f, feature in enumerate(spec.features):
        yield from _check(jax_spec.feature_path(f), feature, jax_spec.feature_label(f, feature))


def _check(path: FieldPath, feature: Any, label: str) -> Iterator[Violation]:
    inputs, outputs = list(feature.input_shape), list(feature.output_shape)
    if not inputs or len(outputs) < 2 or min(inputs + outputs) < 1:
        return  # jax-zero-size and jax-invalid-stacking say what is wrong with these
    batch, samples = inputs[0], prod(outputs[:-1])
    dim = outputs[-1]
    fix = (
        f"make output_shape [{count(batch)}, {dim}]: one row a sample of the input "
        "(a sequence's positions as samples: input_shape [batch x positions, 1])"
    )
    if batch != samples:
        yield Violation(
            (*path, "output_shape"),
            f"{label} has input_shape {inputs} and output_shape {outputs}: the library lays out "
            f"{count(samples)} rows for it in its stack (the output's samples), but its input "
            f"preprocessing writes {count(batch)}, one a sample of the input (it combines a "
            "sample's ids into one row: there is no sequence output): the features after it in "
            "its stack read other features' rows or zeros"
            + (", and so does it" if outputs[0] != batch else ""),
            fix,
        )
    elif len(outputs) > 2:
        yield Violation(
            (*path, "output_shape"),
            f"{label} has output_shape {outputs}: the library's lookup returns a feature's "
            f"activations as [{count(outputs[0])}, {dim}], its output_shape's first dimension "
            + (
                "of rows, not the shape declared"
                if outputs[0] == samples
                else f"of the {count(samples)} rows it lays out for it: the rest are lost"
            ),
            fix,
        )
