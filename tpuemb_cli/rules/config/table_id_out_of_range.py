"""A feature's table_id does not name a table.

## What it does
Reports a `feature_descriptor` whose `table_id` is negative or not below the number of
`table_descriptor`s.

## Why is this bad?
`table_id` indexes the config's tables. Out of range, it points into memory that is not a table.

## What TensorFlow does
Two places, two behaviours. Building the graph, TensorFlow does not check it: the shape function of
`RecvTPUEmbeddingActivations` indexes `table_descriptor[table_id]` directly, and out-of-range ids
give garbage shapes (`(16, 1886680431)`) or crash the process with a segmentation fault (observed
for one past the end, -1 and 1000000). At configure time,
`PopulateMissingFieldsInTPUEmbeddingConfig`, which TensorFlow runs on the config when the TPU
embedding engine is configured (`ConfigureTPUEmbedding`) and when parameters are loaded or
retrieved, rejects it: `Invalid table_id: 1 found in feature_descriptor: ..., all table_ids must be
in the range[0, 1)`.

## Example
```pbtxt
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 16 }
feature_descriptor { name: "watched" table_id: 1 input_shape: 16 }
```

## Use instead
```pbtxt
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 16 }
feature_descriptor { name: "watched" table_id: 0 input_shape: 16 }
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/tpu/tpu_embedding_output_layout_utils.cc`][layout-utils],
  `ComputeOutputTensorShapes` (indexes the tables without a bounds check)
- [`tensorflow/core/ops/tpu_embedding_ops.cc`][ops]
- [`tensorflow/core/tpu/tpu_embedding_configuration_proto_rewrite.cc`][rewrite],
  `ValidateFeatureDescriptors` (the configure-time check)

[layout-utils]: https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/tpu_embedding_output_layout_utils.cc
[ops]: https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/tpu_embedding_ops.cc
[rewrite]: https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/tpu/tpu_embedding_configuration_proto_rewrite.cc
"""

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.rules.base import Config, feature_label


def check_config(config: Config) -> Iterator[Violation]:
    count = len(config.table_descriptor)
    valid = f"0 to {count - 1}" if count else "none: the config has no tables"
    for index, feature in enumerate(config.feature_descriptor):
        if not 0 <= feature.table_id < count:
            yield Violation(
                ("feature_descriptor", index, "table_id"),
                f"{feature_label(config, index)} has `table_id: {feature.table_id}`, but the "
                f"config has {count} table{'s' if count != 1 else ''} (valid ids: {valid}); "
                "building the graph, TensorFlow does not check it and crashes or reads garbage, "
                "and configuring the TPU rejects it",
                "point the feature at the index of its table in `table_descriptor`, counting "
                "from 0",
            )
