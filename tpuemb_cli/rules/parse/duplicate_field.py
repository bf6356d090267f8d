"""A singular field given twice in one message (or a JSON key twice in one object).

## What it does
Reports the second occurrence of a field that holds one value (`mode`, `num_hosts`,
`learning_rate`, ...). Repeated fields (`table_descriptor`, `input_shape`) may of course repeat.

## Why is this bad?
Only one value can be kept. Which one depends on the tool; the other is silently lost.

## What TensorFlow does
Text format rejects it: `Message type "tensorflow.tpu.TPUEmbeddingConfiguration" should not have
multiple "mode" fields.` (protobuf only notices when the first value is not the default.) JSON keeps
the last value. A Keras model's `config.json` is read by Keras with Python's `json`, which keeps
the last value of a key written twice in one object (`"embedding_dim"` in a table, a feature's
name in `feature_configs`) without a word; tpuemb reads the same value and reports the key.

## Example
```pbtxt
mode: TRAINING
num_hosts: 2
mode: INFERENCE
```

## Use instead
```pbtxt
mode: TRAINING
num_hosts: 2
```

## Fix safety
No automatic fix: which value you meant cannot be known.

## Options
None.

## References
- protobuf text_format: "should not have multiple fields"
- [Python's `json`](https://docs.python.org/3/library/json.html#repeated-names-within-an-object):
  "ignores all but the last name-value pair for a given name"
"""
