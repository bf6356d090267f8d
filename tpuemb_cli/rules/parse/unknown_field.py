"""A field name that the message type does not have, including ones TensorFlow removed.

## What it does
Reports a field that does not exist in the message, in text format, JSON and YAML alike, with
the name you probably meant ("did you mean `learning_rate`?"), when one is close:

- a misspelling (`learning_rte`, `vocabulary_sise`), or another spelling of the same words
  (`vocabularySize` or `VocabularySize` in text format, which takes only the declared name);
  the suggestion is spelled as you spell, `vocabularySize` in JSON and YAML, which take both;
- the name TensorFlow's Python API or Keras gives the field, where it differs from the proto's:
  `sgd` (the `SGD` class) for `stochastic_gradient_descent`, `lr` for `learning_rate`,
  `clip_weight_min` for `clipping_limits`, `clipvalue` for `gradient_clipping_limits`,
  `use_gradient_accumulation` for `gradient_accumulation_status`, Adam's `beta_1` and
  `lazy_adam` (the opposite of `use_non_lazy_adam`), FTRL's `l1_regularization_strength` and
  `learning_rate_power`, a table's `dim`, `output_dim` and `optimizer`, a feature's `table`;
  in an embedding spec, which uses the Python API's names, the proto's names map the other way.
  The help says when the value is written differently too.

When nothing is close, or two names are equally close, nothing is suggested and the help lists
the message's fields. Names TensorFlow removed and reserved (`output_layout` in
TPUEmbeddingConfiguration, `initial_accumulator` in AdagradParameters, `initial_m`/`initial_v`
in AdamParameters, ...) are named as such.

A binary file read as a type (with `--type`) that holds fields the type does not define, and
that is another type tpuemb reads, is reported here too, with that type: "it parses as
OptimizationParameters: pass `--type OptimizationParameters`".

## Why is this bad?
A misspelled field is not a field: its value never reaches TensorFlow, so the setting you meant
silently keeps its default -- or the whole config is rejected.

## What TensorFlow does
Text format and JSON parsing reject the file: `Message type
"tensorflow.tpu.TPUEmbeddingConfiguration" has no field named "output_layout".`

## Example
```pbtxt
table_descriptor {
  name: "video"
  vocabulary_sise: 1000
}
```

## Use instead
```pbtxt
table_descriptor {
  name: "video"
  vocabulary_size: 1000
}
```

## Fix safety
No automatic fix: a suggested name is a guess.

## Options
None.

## References
- [`tensorflow/python/tpu/tpu_embedding_v2_utils.py`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/python/tpu/tpu_embedding_v2_utils.py),
  each optimizer's `_set_optimization_parameters` and `TableConfig._set_table_descriptor`: the
  Python API's argument behind each field
- [`tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto),
  `TPUEmbeddingConfiguration` (field 8 and the name `output_layout` are reserved)
- [`tensorflow/core/protobuf/tpu/optimization_parameters.proto`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/protobuf/tpu/optimization_parameters.proto),
  the reserved field names of the optimizer messages (e.g. `initial_accumulator`)
"""
