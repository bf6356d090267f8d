"""An enum given by a name that the enum does not have (often a typo).

## What it does
Reports an enum field written with a name that is not one of its values, with the closest real
value when there is one, whatever its case ("`TRAINNG` ... did you mean `TRAINING`?"; `training`
and `ENABLE` too). When nothing is close, or two values are equally close, the help lists the
values.

## Why is this bad?
TensorFlow cannot read the file.

## What TensorFlow does
Parsing fails: `Enum type "tensorflow.tpu.GradientAccumulationStatus.Status" has no value named
FOO.` (An unknown *number* is accepted by the parser; see `undeclared-enum-value`.)

## Example
```pbtxt
mode: TRAINNG
```

## Use instead
```pbtxt
mode: TRAINING
```

## Fix safety
No automatic fix: a suggested name is a guess.

## Options
None.

## References
- [`tensorflow/core/protobuf/tpu/optimization_parameters.proto`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/protobuf/tpu/optimization_parameters.proto),
  the enums of `OptimizationParameters` and its messages
- [`tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto),
  `TPUEmbeddingConfiguration.Mode` and `ShardingStrategy`; protobuf's text-format parser
  rejects a name an enum does not declare
"""
