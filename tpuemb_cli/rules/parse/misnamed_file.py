"""A file whose content is in another encoding than its name says.

## What it does
Notes a file named like binary protobuf (`.pb`, `.binpb`) whose content is text format (UTF-8
with no control characters, starting with a field name or a comment), or a file named like text
whose content is not UTF-8 but a binary TPU embedding message. tpuemb reads it as what it holds
(and lints it), and says so -- also when `--type` says what the file is (then a binary file named
like text is read as binary when it parses as that type).

## Why is this bad?
Tools that trust the name fail on it: `ParseFromString` reports a corrupt wire format, and a
TensorFlow loader that expects binary rejects or misreads it. The name is common in the wild
(`tf.io.write_graph(..., as_text=True)` writes whatever name it is given).

## What TensorFlow does
Whatever reads the file by its name: `tf.io.read_file` plus `ParseFromString` fails with
`Error parsing message` ("wire format was corrupt"); `text_format.Parse` of the same bytes works.

## Example
```pbtxt
# saved as model.pb
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 16 }
```

## Use instead
```pbtxt
# saved as model.pbtxt
table_descriptor { name: "video" vocabulary_size: 1000 dimension: 16 }
```

## Fix safety
No automatic fix: renaming a file is the user's call (other files may refer to it).

## Options
None.

## References
- [`google/protobuf/text_format.py`][text-format], protobuf's text-format parser, which reads it

[text-format]: https://github.com/protocolbuffers/protobuf/blob/main/python/google/protobuf/text_format.py
"""
