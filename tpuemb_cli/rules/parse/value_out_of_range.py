"""A number too large or too small for its field's type.

## What it does
Reports an integer outside its field's range (`num_hosts` is a 32-bit integer, so 3000000000 does
not fit) and a float beyond the 32-bit float range. An integer of more than 4,300 digits, which
Python (and so protobuf's Python parsers) refuses to read at all, is reported where it is
written, in every text format.

## Why is this bad?
The value cannot be stored; TensorFlow rejects the file.

## What TensorFlow does
Text format: `'num_hosts: 3000000000': Value out of range: 3000000000`; JSON: `Failed to parse
numHosts field: Value out of range: 3000000000.`

## Example
```pbtxt
num_hosts: 3000000000
```

## Use instead
```pbtxt
num_hosts: 3
```

## Fix safety
No automatic fix.

## Options
None.

## References
- [`tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto),
  `TPUEmbeddingConfiguration` (`num_hosts`, `num_tensor_cores` and the other counts are int32;
  only `TableDescriptor.vocabulary_size` is int64)
"""
