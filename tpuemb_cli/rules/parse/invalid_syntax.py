"""The input does not parse: a syntax error, bad encoding or a truncated binary.

## What it does
Reports an input that the loader cannot read as the message type at all: a text-format or JSON
syntax error (a missing brace, a missing colon before a scalar, an unterminated string), a file
that is not UTF-8 text, nesting deeper than protobuf's recursion limit (100), or binary data that
is not a serialized message. It is reported at the parser's line and column, and the other rules
do not run on the file, since there is no message to check. A message that the input ends inside
is reported where protobuf reports it, at the last token, with the line of the brace that is never
closed ("expected `}` to close `table_descriptor[3]`, opened with `{` on line 80, found end of
input"). Binary data that does not parse as the type it is read as, but does as another type
tpuemb reads, says which, with the flag to use ("it parses as GraphDef: pass `--type GraphDef`").

In YAML it also reports, at the alias, aliases that would expand the document by more than
100,000 nodes (a "billion laughs" document: a few hundred bytes of nested aliases that expand to
billions of nodes), an alias inside the node it names (`&a [*a]`, which would hold itself without
end), and nesting deeper than 202 levels once aliases are expanded. These are refused as the
document is built, before anything is expanded, so they cost milliseconds.

## Why is this bad?
TensorFlow cannot load the file either.

## What TensorFlow does
`text_format.Parse`, `json_format.Parse` or `ParseFromString` raises (`ParseError`,
`DecodeError`) when the job starts; for a config passed as an op attribute, the op fails with
`Malformed tpu_embedding_config.`

## Example
```pbtxt
table_descriptor {
  name: "video"
  dimension 16
}
```

## Use instead
```pbtxt
table_descriptor {
  name: "video"
  dimension: 16
}
```

## Fix safety
No automatic fix: the intent of broken syntax cannot be known.

## Options
None.

## References
- [`tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto),
  `TPUEmbeddingConfiguration`, the message a config file is parsed as
- [`tensorflow/core/ops/tpu_embedding_ops.cc`](https://github.com/tensorflow/tensorflow/blob/v2.21.0/tensorflow/core/ops/tpu_embedding_ops.cc),
  `RecvTPUEmbeddingActivations` (`Malformed tpu_embedding_config.` for a config it cannot
  parse)
"""
