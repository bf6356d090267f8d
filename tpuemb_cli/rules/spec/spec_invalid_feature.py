"""A spec feature whose shape TensorFlow rejects or cannot know.

## What it does
Reports a feature with a negative `max_sequence_length`, a shape with a non-positive size, an
`output_shape` that disagrees with the shape its `input_shape` gives, or no way to know its
output shape: no `output_shape`, no `input_shape` and no `per_replica_batch_size` in the topology.
Also reports a spec with tables but no features (TensorFlow would build no table from it).

## Why is this bad?
Every activation's shape must be known before the first step; the script fails when TPUEmbedding
is built.

## What TensorFlow does
``Argument `max_sequence_length` must be an int and must be >= 0``; ``Received input tensor of
shape (). Rank must be 1 and above``; ``Input Feature has output shape set as <unknown> which is
not fully defined.``; ``Inconsistent shape founded for input feature , Output shape is set to be
(16, 3), But got incoming output shape (8, 4)``.

## Example
```yaml
features: [{name: watched, table: video, max_sequence_length: -1}]
topology: {num_hosts: 1, cores_per_host: 8}
```

## Use instead
```yaml
features: [{name: watched, table: video, max_sequence_length: 20}]
topology: {num_hosts: 1, cores_per_host: 8, per_replica_batch_size: 16}
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  `FeatureConfig.__init__` (the `max_sequence_length` and `output_shape` checks)
- [`tensorflow/python/tpu/tpu_embedding_v2.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2.py),
  `TPUEmbedding._get_and_update_output_shapes_from_input` (output shapes and their errors)
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import EmbeddingSpec
from tpuemb_cli.rules.lib.spec_tables import feature_label
from tpuemb_cli.spec.compiler import output_shape
from tpuemb_cli.spec.facts import SpecFacts


def check_spec(spec: EmbeddingSpec, facts: SpecFacts) -> Iterator[Violation]:
    batch = spec.topology.per_replica_batch_size
    if spec.tables and not spec.features:
        yield Violation(
            ("features",),
            "the spec has tables but no features; TensorFlow builds its tables from the features, "
            "so the config would have none",
            "add a feature per input that looks up a table",
        )
    for index, feature in enumerate(spec.features):
        path = ("features", index)
        label = feature_label(spec, index)
        if feature.max_sequence_length < 0:
            yield Violation(
                path + ("max_sequence_length",),
                f"{label} has max_sequence_length {feature.max_sequence_length}; it must be >= 0",
                "use 0 for no sequence, or the sequence length",
            )
        for field in ("input_shape", "output_shape"):
            for axis, size in enumerate(getattr(feature, field)):
                if size < 1:
                    yield Violation(
                        path + (field, axis),
                        f"dimension {axis} of {label}'s {field} is {size}; shapes must "
                        "be fully defined and positive",
                        "give the size of that dimension",
                    )
        if feature.output_shape and feature.input_shape and batch <= 0:
            incoming = output_shape(
                feature.__class__(
                    input_shape=feature.input_shape, max_sequence_length=feature.max_sequence_length
                ),
                0,
            )
            if incoming is not None and incoming != list(feature.output_shape):
                yield Violation(
                    path + ("output_shape",),
                    f"{label}'s output_shape {list(feature.output_shape)} disagrees with "
                    f"the {incoming} its input_shape {list(feature.input_shape)} gives",
                    "make them agree, or drop one",
                )
        # On SparseCore only output_shape counts: TE661 reports a feature without it.
        sparsecore = spec.HasField("sparse_core")
        if not feature.output_shape and not feature.input_shape and batch <= 0 and not sparsecore:
            yield Violation(
                path,
                f"the output shape of {label} cannot be known: it has no output_shape or "
                "input_shape, and the topology has no per_replica_batch_size",
                "set topology.per_replica_batch_size, or the feature's input_shape",
            )
