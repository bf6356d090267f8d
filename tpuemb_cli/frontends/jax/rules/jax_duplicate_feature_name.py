"""Two JAX features with one name.

## What it does
Reports each feature of a spec made from jax-tpu-embedding's objects
(`tpuemb_cli.jax.spec_from_jax`), or of the library's `EmbeddingSpecProto` (in any stack and
table), whose name an earlier feature already has.

## Why is this bad?
The library keys a feature's row offset in its stacked table by the feature's name, and refuses
repeated names once training starts: the mistake survives set-up and fails on the TPU.

## What jax-tpu-embedding does
`prepare_feature_specs_for_training` accepts the repeated name (it keys the row offsets of
features sharing a table by name: a later feature's offset replaces an earlier one's).
`get_table_specs` and `get_stacked_table_specs` -- called by the Flax layers when they are
built and by `tpu_sparse_dense_matmul` and `tpu_sparse_dense_matmul_grad` at every step --
raise `ValueError` ("Feature spec ... is already defined") from `_verify_feature_specs`.
`create_proto_from_feature_specs` writes such features into the `EmbeddingSpecProto` as they are
(run on CPU with 0.1.0: two FeatureSpecs named "f" give a proto with two features "f", and
`get_table_specs` on them raises `ValueError: Feature spec f is already defined.`): a proto with
one feature name twice describes features the library refuses to train.

## Example
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 1000 dim: 16 }
tables { name: "b" vocabulary_size: 1000 dim: 16 }
features { name: "ids" table: "a" input_shape: [128] output_shape: [128, 16] }
features { name: "ids" table: "b" input_shape: [128] output_shape: [128, 16] }
```

## Use instead
```pbtxt
jax { global_device_count: 8 num_sc_per_device: 4 }
tables { name: "a" vocabulary_size: 1000 dim: 16 }
tables { name: "b" vocabulary_size: 1000 dim: 16 }
features { name: "query_ids" table: "a" input_shape: [128] output_shape: [128, 16] }
features { name: "doc_ids" table: "b" input_shape: [128] output_shape: [128, 16] }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`jax_tpu_embedding/sparsecore/lib/nn/embedding.py`](https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/nn/embedding.py),
  `_verify_feature_specs`, `get_table_specs`, `get_stacked_table_specs` and
  `prepare_feature_specs_for_training`
"""

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.rules.lib import stacks as jax_stacks
from tpuemb_cli.frontends.jax.rules.lib.spec import feature_label, feature_path
from tpuemb_cli.model.findings import Violation
from tpuemb_cli.spec.facts import SpecFacts


def check_jax_spec(spec: Any, facts: SpecFacts) -> Iterator[Violation]:
    first: dict[str, int] = {}
    for index, feature in enumerate(spec.features):
        earlier = first.setdefault(feature.name, index)
        if earlier == index:
            continue
        yield Violation(
            (*feature_path(index), "name"),
            f"{feature_label(index, feature)} has the name of feature {earlier}: the library "
            "raises ValueError at the first training step",
            "give every feature a name of its own",
        )


def check_jax(spec: Any) -> Iterator[Violation]:
    first: dict[str, tuple[int, int, int]] = {}
    for s, _, t, _, f, feature in jax_stacks.features(spec):
        earlier = first.setdefault(feature.feature_name, (s, t, f))
        if earlier == (s, t, f):
            continue
        stack = spec.stacked_table_specs[earlier[0]]
        table = stack.table_specs[earlier[1]]
        yield Violation(
            (*jax_stacks.feature_path(s, t, f), "feature_name"),
            f"{jax_stacks.feature_label(f, feature)} has the name of feature {earlier[2]} of "
            f"{jax_stacks.table_label(earlier[1], table)} of "
            f"{jax_stacks.stack_label(earlier[0], stack)}: the library raises ValueError at the "
            "first training step",
            "give every feature a name of its own",
        )
